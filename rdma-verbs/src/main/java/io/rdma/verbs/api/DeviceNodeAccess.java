package io.rdma.verbs.api;

/**
 * What this process may do with a device node under {@code /dev/infiniband}: libibverbs opens
 * {@code uverbsN} and librdmacm {@code rdma_cm} for reading and writing, so anything but
 * {@link #READ_WRITE} makes {@code ibv_open_device} or {@code rdma_create_event_channel} fail.
 *
 * <p>Immutable, so thread-safe.
 */
public enum DeviceNodeAccess {
    READ_WRITE,
    READ_ONLY,
    WRITE_ONLY,
    /** Present, but neither readable nor writable by this process (EACCES). */
    DENIED,
    /** Absent: the kernel module is not loaded, or the container was started without the device (ENOENT). */
    MISSING;

    public boolean usable() {
        return this == READ_WRITE;
    }
}

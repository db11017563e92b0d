package io.rdma.verbs.api;

import io.rdma.verbs.spi.DeviceHandle;

/**
 * A device of the list ({@code struct ibv_device}): named, not yet opened.
 *
 * <p>Thread-safe: immutable; each {@link #open()} makes a new, independent context.
 */
public final class Device {

    private final Verbs verbs;
    private final DeviceHandle handle;

    Device(Verbs verbs, DeviceHandle handle) {
        this.verbs = verbs;
        this.handle = handle;
    }

    public String name() {
        return handle.name();
    }

    /** The node GUID, as {@code ibv_get_device_guid} returns it. */
    public Guid guid() {
        return new Guid(handle.guid());
    }

    /**
     * The transport the device carries RDMA with ({@code transport_type} of {@code struct ibv_device},
     * verbs manual §2.1): InfiniBand (also RoCE's) or iWARP, which connects only through
     * {@link ConnectionManager} and has RC queue pairs only. The simulated fabric's devices are
     * {@link TransportType#INFINIBAND}.
     */
    public TransportType transportType() {
        return handle.transportType();
    }

    /**
     * The device nodes and the locked-memory allowance this process has for the device, readable
     * before {@link #open()}: an unusable {@code uverbsN} is why an open fails.
     */
    public HostAccess hostAccess() {
        return handle.hostAccess();
    }

    /**
     * {@code ibv_open_device}. The context must be closed; closing the {@link Verbs} does it too.
     *
     * @throws VerbsException ENOENT when the device node or driver is missing, EACCES when this
     *         process may not open {@code /dev/infiniband/uverbsN}, ENOMEM when the kernel is short of
     *         memory (verbs manual §2.2); see {@link #hostAccess()}
     * @throws ResourceClosedException when the {@link Verbs} it was listed by is closed (or its
     *         close has begun); nothing is opened then
     */
    public DeviceContext open() {
        return verbs.open(this, handle);
    }

    Verbs verbs() {
        return verbs;
    }

    @Override
    public String toString() {
        return "device " + name();
    }
}

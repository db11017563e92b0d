package io.rdma.verbs.spi;

/** {@code struct ibv_device}: a device of the list, not yet opened. */
public interface DeviceHandle {

    String name();

    long guid();

    /** {@code ibv_open_device}. */
    ContextHandle open();
}

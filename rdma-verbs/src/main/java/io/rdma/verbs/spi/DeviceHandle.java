package io.rdma.verbs.spi;

import io.rdma.verbs.api.HostAccess;
import io.rdma.verbs.api.TransportType;

/** {@code struct ibv_device}: a device of the list, not yet opened. */
public interface DeviceHandle {

    String name();

    long guid();

    /** {@code transport_type} of {@code struct ibv_device}. */
    TransportType transportType();

    /** The device's nodes and the process's locked-memory allowance, as the host grants them. */
    HostAccess hostAccess();

    /** {@code ibv_open_device}. */
    ContextHandle open();
}

package io.rdma.verbs.spi;

import io.rdma.verbs.api.FabricControl;
import io.rdma.verbs.api.ResourceKind;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** An open device list: the devices, the provider's own live-object census, and fault control where it has one. */
public interface ProviderSession extends AutoCloseable {

    List<DeviceHandle> devices();

    /** Objects the provider has created and not yet destroyed, per kind; every kind present, zero or not. */
    Map<ResourceKind, Long> liveObjects();

    /** Port state changes and fault injection; only a software fabric offers them. */
    Optional<FabricControl> control();

    /** {@code ibv_free_device_list}: called after every context opened from it was closed. */
    @Override
    void close();
}

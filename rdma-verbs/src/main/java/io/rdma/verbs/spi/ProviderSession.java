package io.rdma.verbs.spi;

import io.rdma.verbs.api.ResourceKind;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** An open device list: the devices, the provider's own live-object census, and its extensions where it has any. */
public interface ProviderSession extends AutoCloseable {

    List<DeviceHandle> devices();

    /** Objects the provider has created and not yet destroyed, per kind; every kind present, zero or not. */
    Map<ResourceKind, Long> liveObjects();

    /**
     * The provider-specific facility of {@code type} this session offers (the simulated fabric's
     * fault injection, say); empty when it offers none of that type.
     */
    <T> Optional<T> extension(Class<T> type);

    /** {@code ibv_free_device_list}: called after every context opened from it was closed. */
    @Override
    void close();
}

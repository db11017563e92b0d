package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.provider.support.LiveObjectCensus;
import io.rdma.verbs.spi.DeviceHandle;
import io.rdma.verbs.spi.ProviderSession;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** An open {@code ibv_get_device_list}; freed when the API closes it, after every context. */
final class NativeSession implements ProviderSession {

    private final DeviceList list;
    private final LiveObjectCensus census = new LiveObjectCensus();
    private final List<DeviceHandle> devices;

    NativeSession(DeviceList list) {
        this.list = list;
        this.devices = list.devices().stream().<DeviceHandle>map(device -> new NativeDevice(device, census)).toList();
    }

    @Override
    public List<DeviceHandle> devices() {
        return devices;
    }

    @Override
    public Map<ResourceKind, Long> liveObjects() {
        return census.snapshot();
    }

    /** The native provider offers no extensions: real hardware takes no fault injection. */
    @Override
    public <T> Optional<T> extension(Class<T> type) {
        return Optional.empty();
    }

    @Override
    public void close() {
        list.close();
    }
}

package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.HostAccess;
import io.rdma.verbs.api.TransportType;
import io.rdma.verbs.provider.ibverbs.generated.ibv_device;
import io.rdma.verbs.provider.ibverbs.generated.rdma_h;
import io.rdma.verbs.provider.support.LiveObjectCensus;
import io.rdma.verbs.spi.ContextHandle;
import io.rdma.verbs.spi.DeviceHandle;

import java.lang.foreign.MemorySegment;

/** {@code struct ibv_device} of the list. */
final class NativeDevice implements DeviceHandle {

    private static final CheckedCall OPEN_DEVICE = CheckedCall.bind("ibv_open_device",
            rdma_h.ibv_open_device$address(), rdma_h.ibv_open_device$descriptor());

    private final MemorySegment device;
    private final LiveObjectCensus census;
    private final String name;
    private final long guid;
    private final TransportType transportType;

    NativeDevice(MemorySegment device, LiveObjectCensus census) {
        this.device = device;
        this.census = census;
        this.name = DeviceList.name(device);
        this.guid = DeviceList.guid(device);
        this.transportType = DeviceList.transportType(device);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long guid() {
        return guid;
    }

    @Override
    public TransportType transportType() {
        return transportType;
    }

    /** Read anew on each call: permissions and limits may change while the process runs. */
    @Override
    public HostAccess hostAccess() {
        return NativeHostAccess.read(ibv_device.dev_name(device).getString(0));
    }

    @Override
    public ContextHandle open() {
        MemorySegment context = OPEN_DEVICE.pointer("device " + name, device);
        try {
            return new NativeContext(name, DeviceList.sysfsPath(device), transportType, context, census);
        } catch (RuntimeException e) {
            rdma_h.ibv_close_device(context);
            throw e;
        }
    }
}

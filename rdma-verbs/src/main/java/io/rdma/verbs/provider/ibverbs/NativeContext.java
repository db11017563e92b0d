package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.AtomicCapability;
import io.rdma.verbs.api.CompletionCounterOptions;
import io.rdma.verbs.api.DeviceAttributes;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.Guid;
import io.rdma.verbs.api.GidEntry;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.Mtu;
import io.rdma.verbs.api.PhysicalPortState;
import io.rdma.verbs.api.PortAttributes;
import io.rdma.verbs.api.PortCounters;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.ReliabilitySettings;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.TransportType;
import io.rdma.verbs.provider.ibverbs.generated.ibv_comp_channel;
import io.rdma.verbs.provider.ibverbs.generated.ibv_context;
import io.rdma.verbs.provider.ibverbs.generated.ibv_cq;
import io.rdma.verbs.provider.ibverbs.generated.ibv_cq_ex;
import io.rdma.verbs.provider.ibverbs.generated.ibv_cq_init_attr_ex;
import io.rdma.verbs.provider.ibverbs.generated.ibv_device_attr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_device_attr_ex;
import io.rdma.verbs.provider.ibverbs.generated.ibv_gid;
import io.rdma.verbs.provider.ibverbs.generated.ibv_port_attr;
import io.rdma.verbs.provider.ibverbs.generated.rdma_h;
import io.rdma.verbs.provider.support.LiveObjectCensus;
import io.rdma.verbs.spi.AsyncEventSink;
import io.rdma.verbs.spi.ChannelHandle;
import io.rdma.verbs.spi.CompletionCounterHandle;
import io.rdma.verbs.spi.ConnectionManagerHandle;
import io.rdma.verbs.spi.ContextHandle;
import io.rdma.verbs.spi.CountersHandle;
import io.rdma.verbs.spi.CqHandle;
import io.rdma.verbs.spi.PdHandle;
import io.rdma.verbs.spi.QpHandle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/** {@code struct ibv_context}: an opened device and the registry that maps native objects back to handles. */
final class NativeContext implements ContextHandle, ConnectionManagerHandle {

    private static final CheckedCall CLOSE_DEVICE = CheckedCall.bind("ibv_close_device",
            rdma_h.ibv_close_device$address(), rdma_h.ibv_close_device$descriptor());
    private static final CheckedCall QUERY_GID = CheckedCall.bind("ibv_query_gid",
            rdma_h.ibv_query_gid$address(), rdma_h.ibv_query_gid$descriptor());
    private static final CheckedCall ALLOC_PD = CheckedCall.bind("ibv_alloc_pd",
            rdma_h.ibv_alloc_pd$address(), rdma_h.ibv_alloc_pd$descriptor());
    private static final CheckedCall CREATE_COMP_CHANNEL = CheckedCall.bind("ibv_create_comp_channel",
            rdma_h.ibv_create_comp_channel$address(), rdma_h.ibv_create_comp_channel$descriptor());
    private static final CheckedCall CREATE_CQ = CheckedCall.bind("ibv_create_cq",
            rdma_h.ibv_create_cq$address(), rdma_h.ibv_create_cq$descriptor());

    private final String deviceName;
    private final String sysfsPath;
    private final TransportType transportType;
    private final MemorySegment context;
    private final LiveObjectCensus census;
    private final InlineVerbs verbs;
    private final CompletionCounters completionCounters;
    private final DeviceAttributes attributes;
    /** Native CQs, QPs and SRQs by address, to map async events back to their handles. */
    private final Map<Long, Object> byAddress = new ConcurrentHashMap<>();
    private final NativeConnectionManager connectionManager = new NativeConnectionManager(this);
    private volatile @Nullable AsyncEventPump asyncEvents;

    NativeContext(String deviceName, String sysfsPath, TransportType transportType, MemorySegment context,
                  LiveObjectCensus census) {
        this.deviceName = deviceName;
        this.sysfsPath = sysfsPath;
        this.transportType = transportType;
        this.context = context.reinterpret(ibv_context.sizeof());
        this.census = census;
        this.verbs = new InlineVerbs(this.context);
        this.completionCounters = CompletionCounters.detect(this);
        this.attributes = readAttributes();
        census.created(ResourceKind.DEVICE_CONTEXT);
    }

    String deviceName() {
        return deviceName;
    }

    TransportType transportType() {
        return transportType;
    }

    MemorySegment segment() {
        return context;
    }

    InlineVerbs verbs() {
        return verbs;
    }

    LiveObjectCensus census() {
        return census;
    }

    void register(MemorySegment nativeObject, Object handle) {
        byAddress.put(nativeObject.address(), handle);
    }

    void unregister(MemorySegment nativeObject) {
        byAddress.remove(nativeObject.address());
    }

    /** The handle registered for a native CQ, QP or SRQ; null if it is gone. */
    @Nullable Object handleAt(long address) {
        return byAddress.get(address);
    }

    /** Device attributes never change while a context is open, so they are read once. */
    @Override
    public DeviceAttributes queryDevice() {
        return attributes;
    }

    private DeviceAttributes readAttributes() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attrEx = ibv_device_attr_ex.allocate(arena);
            verbs.queryDeviceEx(attrEx);
            MemorySegment attr = ibv_device_attr_ex.orig_attr(attrEx);
            return new DeviceAttributes(
                    ibv_device_attr.fw_ver(attr).getString(0),
                    SysfsDeviceIdentity.read(sysfsPath, SysfsDeviceIdentity.BOARD_ID),
                    SysfsDeviceIdentity.read(sysfsPath, SysfsDeviceIdentity.HCA_TYPE),
                    new Guid(Long.reverseBytes(ibv_device_attr.node_guid(attr))),
                    new Guid(Long.reverseBytes(ibv_device_attr.sys_image_guid(attr))),
                    ibv_device_attr.max_mr_size(attr),
                    ibv_device_attr.page_size_cap(attr),
                    ibv_device_attr.vendor_id(attr),
                    ibv_device_attr.vendor_part_id(attr),
                    ibv_device_attr.hw_ver(attr),
                    ibv_device_attr.max_qp(attr),
                    ibv_device_attr.max_qp_wr(attr),
                    ibv_device_attr.max_sge(attr),
                    ibv_device_attr.max_cq(attr),
                    ibv_device_attr.max_cqe(attr),
                    ibv_device_attr.max_mr(attr),
                    ibv_device_attr.max_pd(attr),
                    ibv_device_attr.max_qp_rd_atom(attr),
                    ibv_device_attr.max_qp_init_rd_atom(attr),
                    AtomicCapability.of(ibv_device_attr.atomic_cap(attr)),
                    ibv_device_attr.max_ah(attr),
                    ibv_device_attr.max_srq(attr),
                    ibv_device_attr.max_srq_wr(attr),
                    ibv_device_attr.max_srq_sge(attr),
                    InlineLimitProbe.largestInlineData(context),
                    Byte.toUnsignedInt(ibv_device_attr.phys_port_cnt(attr)),
                    ibv_device_attr_ex.completion_timestamp_mask(attrEx) != 0
                            && verbs.extendedOp("create_cq_ex").address() != 0,
                    completionCounters.maxCounters(),
                    completionCounters.maxValue(),
                    completionCounters.supportedOps(),
                    NativeFlowCounters.probe(this));
        }
    }

    @Override
    public PortAttributes queryPort(int port) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_port_attr.allocate(arena);
            verbs.queryPort(port, attr);
            return new PortAttributes(port,
                    PortState.of(ibv_port_attr.state(attr)),
                    PhysicalPortState.of(Byte.toUnsignedInt(ibv_port_attr.phys_state(attr))),
                    Mtu.of(ibv_port_attr.max_mtu(attr)),
                    Mtu.of(ibv_port_attr.active_mtu(attr)),
                    Short.toUnsignedInt(ibv_port_attr.lid(attr)),
                    Short.toUnsignedInt(ibv_port_attr.sm_lid(attr)),
                    Byte.toUnsignedInt(ibv_port_attr.lmc(attr)),
                    ibv_port_attr.gid_tbl_len(attr),
                    Short.toUnsignedInt(ibv_port_attr.pkey_tbl_len(attr)),
                    Integer.toUnsignedLong(ibv_port_attr.max_msg_sz(attr)),
                    Byte.toUnsignedInt(ibv_port_attr.active_speed(attr)),
                    Byte.toUnsignedInt(ibv_port_attr.active_width(attr)),
                    LinkLayer.of(Byte.toUnsignedInt(ibv_port_attr.link_layer(attr))));
        }
    }

    @Override
    public Gid queryGid(int port, int index) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment gid = ibv_gid.allocate(arena);
            QUERY_GID.status("port " + port + ", GID index " + index, context, (byte) port, index, gid);
            return Gid.of(gid.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
    }

    @Override
    public List<GidEntry> gidTable(int port) {
        PortAttributes attributes = queryPort(port);
        return SysfsGidTable.read(sysfsPath, deviceName, port, attributes.gidTableLength(), attributes.linkLayer(),
                transportType);
    }

    @Override
    public PortCounters portCounters(int port) {
        return SysfsPortCounters.read(sysfsPath, deviceName, port);
    }

    @Override
    public PdHandle allocatePd() {
        return new NativePd(this, ALLOC_PD.pointer("device " + deviceName, context));
    }

    @Override
    public ChannelHandle createCompletionChannel() {
        MemorySegment channel = CREATE_COMP_CHANNEL.pointer("device " + deviceName, context)
                .reinterpret(ibv_comp_channel.sizeof());
        return new NativeChannel(this, channel);
    }

    @Override
    public CqHandle createCompletionQueue(int entries, @Nullable ChannelHandle channel, int completionVector,
                                          boolean timestamps) {
        NativeChannel nativeChannel = (NativeChannel) channel;
        MemorySegment channelSegment = nativeChannel == null ? MemorySegment.NULL : nativeChannel.segment();
        String detail = entries + " entries, completion vector " + completionVector;
        if (!timestamps) {
            MemorySegment cq = CREATE_CQ.pointer(detail, context, entries, MemorySegment.NULL, channelSegment,
                    completionVector).reinterpret(ibv_cq.sizeof());
            return new NativeCq(this, cq, nativeChannel, false);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_cq_init_attr_ex.allocate(arena);
            ibv_cq_init_attr_ex.cqe(attr, entries);
            ibv_cq_init_attr_ex.channel(attr, channelSegment);
            ibv_cq_init_attr_ex.comp_vector(attr, completionVector);
            ibv_cq_init_attr_ex.wc_flags(attr, rdma_h.IBV_WC_STANDARD_FLAGS()
                    | rdma_h.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP());
            MemorySegment cq = verbs.createCqEx(attr, detail + ", with completion timestamps")
                    .reinterpret(ibv_cq_ex.sizeof());
            return new NativeCq(this, cq, nativeChannel, true);
        }
    }

    @Override
    public CompletionCounterHandle createCompletionCounter(CompletionCounterOptions options) {
        return completionCounters.create(options);
    }

    @Override
    public CountersHandle createFlowCounters() {
        return NativeFlowCounters.create(this);
    }

    @Override
    public ListenerHandle listen(java.net.InetSocketAddress address, int backlog) {
        return connectionManager.listen(address, backlog);
    }

    @Override
    public ConnectionHandle connect(java.net.InetSocketAddress remote, QpHandle qp, byte[] privateData,
                                    long timeoutNanos, ReliabilitySettings reliability, Runnable beforeHandshake)
            throws InterruptedException {
        return connectionManager.connect(remote, qp, privateData, timeoutNanos, reliability, beforeHandshake);
    }

    @Override
    public void startAsyncEvents(AsyncEventSink sink) {
        asyncEvents = AsyncEventPump.start(this, sink);
    }

    @Override
    public void close() {
        AsyncEventPump pump = asyncEvents;
        if (pump != null) {
            pump.stop();
        }
        CLOSE_DEVICE.status("device " + deviceName, context);
        census.destroyed(ResourceKind.DEVICE_CONTEXT);
    }
}

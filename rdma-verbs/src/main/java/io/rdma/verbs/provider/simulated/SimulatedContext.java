package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.AtomicCapability;
import io.rdma.verbs.api.CompletionCounterMode;
import io.rdma.verbs.api.CompletionCounterOptions;
import io.rdma.verbs.api.DeviceAttributes;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.Guid;
import io.rdma.verbs.api.GidEntry;
import io.rdma.verbs.api.PortAttributes;
import io.rdma.verbs.api.PortCounters;
import io.rdma.verbs.api.ReliabilitySettings;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.provider.support.SoftwareCompletionCounter;
import io.rdma.verbs.spi.AsyncEventSink;
import io.rdma.verbs.spi.ChannelHandle;
import io.rdma.verbs.spi.CompletionCounterHandle;
import io.rdma.verbs.spi.ConnectionManagerHandle;
import io.rdma.verbs.spi.ContextHandle;
import io.rdma.verbs.spi.CountersHandle;
import io.rdma.verbs.spi.CqHandle;
import io.rdma.verbs.spi.PdHandle;
import io.rdma.verbs.spi.QpHandle;

import java.net.InetSocketAddress;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * An opened simulated device: queries answer from the spec, creations count against its
 * limits, and connections go through the fabric's in-JVM connection manager.
 */
final class SimulatedContext implements ContextHandle, ConnectionManagerHandle {

    /** What rxe reports ({@code RXE_PAGE_SIZE_CAP}): every page size from 4 KiB up, a u64 mask. */
    private static final long PAGE_SIZE_CAP = 0xffff_f000L;
    /**
     * The sysfs identity of the board the spec's vendor and part (0x02c9, 0x1017: a ConnectX-5)
     * stand for: mlx5 names the part {@code MT4119}; the board id says it is simulated.
     */
    private static final String HCA_TYPE = "MT4119";
    private static final String BOARD_ID_PREFIX = "SIM_";

    private final SimulatedDevice device;
    private volatile @Nullable AsyncEventSink sink;

    SimulatedContext(SimulatedDevice device) {
        this.device = device;
    }

    SimulatedDevice device() {
        return device;
    }

    @Override
    public DeviceAttributes queryDevice() {
        DeviceSpec spec = device.spec();
        Guid guid = new Guid(device.guid());
        return new DeviceAttributes("sim-1.0", BOARD_ID_PREFIX + device.name(), HCA_TYPE, guid, guid, spec.maxMrSize(), PAGE_SIZE_CAP, 0x02c9, 0x1017,
                0, spec.maxQp(), spec.maxQpWr(), spec.maxSge(), spec.maxCq(), spec.maxCqe(), spec.maxMr(),
                spec.maxPd(), spec.maxQpRdAtom(), spec.maxQpRdAtom(),
                spec.atomics() ? AtomicCapability.HCA : AtomicCapability.NONE, spec.maxAh(), spec.maxSrq(),
                spec.maxSrqWr(), spec.maxSge(), spec.maxInlineData(), spec.ports(), spec.completionTimestamps(),
                spec.maxCompletionCounters(), spec.completionCounterMaxValue(),
                spec.maxCompletionCounters() > 0 ? spec.completionCounterOps() : java.util.Set.of(),
                spec.flowCounters());
    }

    @Override
    public PortAttributes queryPort(int port) {
        return device.port(port).attributes();
    }

    @Override
    public Gid queryGid(int port, int index) {
        var gids = device.port(port).gids();
        if (index < 0 || index >= gids.size()) {
            throw Failures.invalid("ibv_query_gid", "GID index " + index + " is outside the table of " + gids.size()
                    + " entries of port " + port);
        }
        return gids.get(index);
    }

    @Override
    public List<GidEntry> gidTable(int port) {
        return device.port(port).gidTable();
    }

    @Override
    public PortCounters portCounters(int port) {
        return device.port(port).counters();
    }

    @Override
    public PdHandle allocatePd() {
        device.reserve(ResourceKind.PROTECTION_DOMAIN, device.spec().maxPd(), "ibv_alloc_pd", "protection domains");
        return new SimulatedPd(this);
    }

    @Override
    public ChannelHandle createCompletionChannel() {
        device.checkInjected("ibv_create_comp_channel");
        device.host().census().created(ResourceKind.COMPLETION_CHANNEL);
        return new SimulatedChannel(device.host().census());
    }

    @Override
    public CqHandle createCompletionQueue(int entries, @Nullable ChannelHandle channel, int completionVector,
                                          boolean timestamps) {
        String verb = timestamps ? "ibv_create_cq_ex" : "ibv_create_cq";
        if (entries < 1 || entries > device.spec().maxCqe()) {
            throw Failures.aboveLimit(verb, "cqe", entries, device.spec().maxCqe());
        }
        if (timestamps && !device.spec().completionTimestamps()) {
            throw Failures.unsupported(verb, device.name() + " has no completion timestamps");
        }
        if (completionVector != 0) {
            throw Failures.invalid(verb, "comp_vector " + completionVector + " does not exist",
                    "the simulated device has one completion vector, 0");
        }
        device.reserve(ResourceKind.COMPLETION_QUEUE, device.spec().maxCq(), verb, "completion queues");
        return new SimulatedCq(this, entries, (SimulatedChannel) channel, timestamps);
    }

    @Override
    public CompletionCounterHandle createCompletionCounter(CompletionCounterOptions options) {
        if (device.spec().maxCompletionCounters() == 0) {
            device.checkInjected("ibv_create_comp_cntr");
            throw Failures.unsupported("ibv_create_comp_cntr", device.name() + " has no completion counters");
        }
        device.reserve(ResourceKind.COMPLETION_COUNTER, device.spec().maxCompletionCounters(),
                "ibv_create_comp_cntr", "completion counters");
        try {
            return SoftwareCompletionCounter.of(options, device.spec().completionCounterMaxValue(),
                    CompletionCounterMode.SIMULATED, device.name(),
                    () -> device.release(ResourceKind.COMPLETION_COUNTER));
        } catch (RuntimeException e) {
            device.release(ResourceKind.COMPLETION_COUNTER);
            throw e;
        }
    }

    @Override
    public CountersHandle createFlowCounters() {
        device.checkInjected("ibv_create_counters");
        if (!device.spec().flowCounters()) {
            throw Failures.unsupported("ibv_create_counters", device.name() + " has no flow counters");
        }
        device.host().census().created(ResourceKind.FLOW_COUNTERS);
        return new SimulatedCounters(device.host().census());
    }

    @Override
    public ListenerHandle listen(InetSocketAddress address, int backlog) {
        return device.fabric().connections().listen(this, address, backlog);
    }

    @Override
    public ConnectionHandle connect(InetSocketAddress remote, QpHandle qp, byte[] privateData, long timeoutNanos,
                                    ReliabilitySettings reliability, Runnable beforeHandshake)
            throws InterruptedException {
        return device.fabric().connections().connect(this, remote, (SimulatedQp) qp, privateData, timeoutNanos,
                reliability, beforeHandshake);
    }

    @Override
    public void startAsyncEvents(AsyncEventSink eventSink) {
        sink = eventSink;
    }

    /** Queues an async event for this context's listeners ({@code ibv_get_async_event}). */
    void raise(AsyncEventType type, @Nullable Object element, int port) {
        AsyncEventSink target = sink;
        if (target != null) {
            device.fabric().defer(() -> target.deliver(type, element, port));
        }
    }

    @Override
    public void close() {
        sink = null;
        device.closed(this);
    }
}

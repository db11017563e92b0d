package io.rdma.boot.autoconfigure.endpoint;

import io.rdma.spring.completion.CompletionPoller;
import io.rdma.spring.completion.CompletionPollers;
import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.CompletionCounter;
import io.rdma.verbs.api.CompletionCounterMode;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.CounterDescription;
import io.rdma.verbs.api.DeviceAttributes;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.Flow;
import io.rdma.verbs.api.FlowCounters;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.PortAttributes;
import io.rdma.verbs.api.PortCounters;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.RemoteBuffer;
import io.rdma.verbs.api.Unsigned64;
import io.rdma.verbs.api.VerbsResource;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Optional;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * {@code /actuator/rdma}: the provider and why it was chosen, each device as {@code ibv_devinfo -v}
 * shows it with its ports (state, LIDs, GIDs, MTUs, link layer, counters), every declared resource
 * with the property that declares it, the values of the resources that count or hold something
 * (completion counters, completion queues, queue pairs, memory pools, flows), and the declared
 * connections: each listener's bound address (the chosen port for port 0) with the peers it
 * accepted, and each outbound connection's state, each connected rc queue pair with the
 * reliability settings it has (ACK timeout, retry counts, RNR timer, and how long a peer that is
 * gone takes to be noticed). {@code /actuator/rdma/{device}} is one device,
 * {@code /actuator/rdma/{device}/{port}} one port; a name or port that does not exist is a 404.
 *
 * <p>Unsigned 64-bit values (counter values and maxima, {@code max_mr_size}) are exact JSON
 * numbers, never negative. Memory keys and addresses are left out unless
 * {@code rdma.endpoint.show-keys} is set. Closed resources are listed (with {@code closed: true})
 * but have no values.
 */
@Endpoint(id = "rdma")
public class RdmaEndpoint {

    private final RdmaResources resources;
    private final RdmaConnections connections;
    private final CompletionPollers pollers;
    private final boolean showKeys;

    public RdmaEndpoint(RdmaResources resources, RdmaConnections connections, CompletionPollers pollers,
                        boolean showKeys) {
        this.resources = resources;
        this.connections = connections;
        this.pollers = pollers;
        this.showKeys = showKeys;
    }

    @ReadOperation
    public RdmaDescriptor rdma() {
        List<DeviceDescriptor> devices = new ArrayList<>();
        for (RdmaResources.Named<DeviceContext> device : resources.resources(DeviceContext.class)) {
            devices.add(describeDevice(device.name(), device.resource()));
        }
        return new RdmaDescriptor(resources.verbs().providerName(), resources.verbs().selectionReason(), devices,
                new ConnectionsDescriptor(connections.listeners(), connections.outbound(),
                        connections.services()));
    }

    /** One declared device; {@code null} (a 404) when none is declared by that name. */
    @ReadOperation
    public @Nullable DeviceDescriptor device(@Selector String device) {
        return deviceContext(device).map(context -> describeDevice(device, context)).orElse(null);
    }

    /** One port of a declared device; {@code null} (a 404) when either does not exist. */
    @ReadOperation
    public @Nullable PortDescriptor port(@Selector String device, @Selector int port) {
        return deviceContext(device)
                .filter(context -> port >= 1 && port <= context.queryDevice().physicalPortCount())
                .map(context -> describePort(device, context, port)).orElse(null);
    }

    private Optional<DeviceContext> deviceContext(String device) {
        return resources.resources(DeviceContext.class).stream().filter(named -> named.name().equals(device))
                .map(RdmaResources.Named::resource).filter(context -> !context.isClosed()).findFirst();
    }

    /** Declared completion counter {@code counter} on {@code device}; empty when there is none there, or it is closed. */
    Optional<CompletionCounter> openCompletionCounter(String device, String counter) {
        return open(device, CompletionCounter.class).stream().filter(named -> named.name().equals(counter))
                .findFirst().map(RdmaResources.Named::resource);
    }

    /**
     * The values of declared completion counter {@code counter} on {@code device}; empty when
     * there is no such counter there, or it is closed.
     */
    Optional<CompletionCounterDescriptor> completionCounter(String device, String counter) {
        return open(device, CompletionCounter.class).stream().filter(named -> named.name().equals(counter))
                .findFirst().map(this::completionCounter);
    }

    private DeviceDescriptor describeDevice(String name, DeviceContext context) {
        DeviceAttributes attributes = context.queryDevice();
        List<PortDescriptor> ports = new ArrayList<>();
        for (int port = 1; port <= attributes.physicalPortCount(); port++) {
            ports.add(describePort(name, context, port));
        }
        List<ResourceDescriptor> deviceResources = resources.resources().stream()
                .filter(managed -> managed.declaration().device().equals(name))
                .map(managed -> new ResourceDescriptor(managed.name(), managed.declaration().kind().name(),
                        managed.declaration().property(), managed.resource().toString(),
                        managed.resource().isClosed()))
                .toList();
        return new DeviceDescriptor(name, context.deviceName(), attributes.nodeGuid().toString(),
                attributes.systemImageGuid().toString(), attributes.firmwareVersion(),
                "0x%04x".formatted(attributes.vendorId()),
                Integer.toUnsignedLong(attributes.vendorPartId()), Integer.toUnsignedLong(attributes.hardwareVersion()),
                attributes.physicalPortCount(),
                Unsigned64.toBigInteger(attributes.maxMrSize()), Unsigned64.toBigInteger(attributes.pageSizeCap()),
                ports, deviceResources,
                values(name, CompletionCounter.class, this::completionCounter),
                values(name, CompletionQueue.class, this::completionQueue),
                values(name, QueuePair.class, this::queuePair),
                values(name, MemoryPool.class, this::memoryPool),
                values(name, Flow.class, this::flow));
    }

    private <T extends VerbsResource, D> List<D> values(String device, Class<T> type,
                                                        Function<RdmaResources.Named<T>, D> describe) {
        return open(device, type).stream().map(describe).toList();
    }

    /** The open declared resources of {@code type} on {@code device}, in creation order. */
    private <T extends VerbsResource> List<RdmaResources.Named<T>> open(String device, Class<T> type) {
        return resources.resources(type).stream()
                .filter(named -> named.declaration().device().equals(device) && !named.resource().isClosed())
                .toList();
    }

    private PortDescriptor describePort(String device, DeviceContext context, int port) {
        PortAttributes attributes = context.queryPort(port);
        List<GidDescriptor> gids = context.queryGidTable(port).stream()
                .map(entry -> new GidDescriptor(entry.index(), entry.gid().toString(), entry.type().label(),
                        entry.netdev()))
                .toList();
        PortCounters counters = context.portCounters(port);
        return new PortDescriptor(port, attributes.state().name(), attributes.state().ordinal(),
                attributes.maxMtu().bytes(), attributes.activeMtu().bytes(), attributes.lid(), attributes.smLid(),
                attributes.linkLayer().name(), gids, resources.configuredPorts(device).contains(port),
                unsigned(counters.counters()), unsigned(counters.hardwareCounters()));
    }

    /** u64 counters by name, in name order, as numbers JSON cannot print negative. */
    private static Map<String, BigInteger> unsigned(Map<String, Long> counters) {
        Map<String, BigInteger> values = new TreeMap<>();
        counters.forEach((counter, value) -> values.put(counter, Unsigned64.toBigInteger(value)));
        return values;
    }

    private CompletionCounterDescriptor completionCounter(RdmaResources.Named<CompletionCounter> named) {
        CompletionCounter counter = named.resource();
        return new CompletionCounterDescriptor(named.name(), counter.mode(),
                Unsigned64.toBigInteger(counter.completions()), Unsigned64.toBigInteger(counter.errors()),
                Unsigned64.toBigInteger(counter.maxValue()));
    }

    private CompletionQueueDescriptor completionQueue(RdmaResources.Named<CompletionQueue> named) {
        // every declared CQ has its poller
        CompletionPoller poller = pollers.poller(named.name()).orElseThrow();
        return new CompletionQueueDescriptor(named.name(), named.resource().capacity(), poller.mode().name(),
                poller.completionsByStatus());
    }

    private QueuePairDescriptor queuePair(RdmaResources.Named<QueuePair> named) {
        QueuePair qp = named.resource();
        return new QueuePairDescriptor(named.name(), qp.type().name(), qp.qpNumber(), qp.state().name(),
                qp.outstandingSends(), qp.outstandingReceives());
    }

    private MemoryPoolDescriptor memoryPool(RdmaResources.Named<MemoryPool> named) {
        MemoryPool pool = named.resource();
        MemoryKeys keys = null;
        if (showKeys) {
            RemoteBuffer memory = pool.remote();
            keys = new MemoryKeys("0x%08x".formatted(pool.lkey()), "0x%08x".formatted(pool.rkey()),
                    "0x%016x".formatted(memory.address()), Unsigned64.toBigInteger(memory.length()));
        }
        return new MemoryPoolDescriptor(named.name(), pool.bufferSize(), pool.capacity(), pool.leasedCount(), keys);
    }

    private FlowDescriptor flow(RdmaResources.Named<Flow> named) {
        FlowCounters counters = named.resource().counters();
        List<CounterDescription> points = resources.flowCounterPoints(named.name());
        long[] values = counters == null || counters.isClosed() ? new long[0] : counters.read();
        return new FlowDescriptor(named.name(), named.resource().spec().port(),
                total(points, values, CounterDescription.PACKETS), total(points, values, CounterDescription.BYTES));
    }

    /**
     * The sum of the flow's counter points that count {@code what} (one per point, unless the
     * configuration lists it twice); {@code null} when the flow does not count it.
     */
    private static @Nullable BigInteger total(List<CounterDescription> points, long[] values, CounterDescription what) {
        BigInteger total = null;
        for (int index = 0; index < points.size() && index < values.length; index++) {
            if (points.get(index) == what) {
                BigInteger value = Unsigned64.toBigInteger(values[index]);
                total = total == null ? value : total.add(value);
            }
        }
        return total;
    }

    public record RdmaDescriptor(String provider, String selectionReason, List<DeviceDescriptor> devices,
                                   ConnectionsDescriptor connections) {
    }

    public record ConnectionsDescriptor(List<RdmaConnections.ListenerStatus> listeners,
                                        List<RdmaConnections.OutboundStatus> outbound,
                                        List<RdmaConnections.ServiceStatus> services) {
    }

    /**
     * A device by its key in {@code rdma.devices} ({@code name}, which the paths select) and the
     * name the provider lists it by ({@code deviceName}, as ibv_devices shows it), then as
     * {@code ibv_devinfo -v} shows it: GUIDs in its hex form, the vendor id in hex, the u32 ids
     * unsigned and the u64 limits as exact JSON numbers (rxe's {@code max_mr_size} is
     * 18446744073709551615, never -1); then its declared resources, and the values of those that
     * count or hold something.
     */
    public record DeviceDescriptor(String name, String deviceName, String nodeGuid, String systemImageGuid,
                                   String firmwareVersion, String vendorId, long vendorPartId, long hardwareVersion,
                                   int physicalPortCount, BigInteger maxMrSize, BigInteger pageSizeCap,
                                   List<PortDescriptor> ports, List<ResourceDescriptor> resources,
                                   List<CompletionCounterDescriptor> completionCounters,
                                   List<CompletionQueueDescriptor> completionQueues,
                                   List<QueuePairDescriptor> queuePairs, List<MemoryPoolDescriptor> memoryPools,
                                   List<FlowDescriptor> flows) {
    }

    /**
     * A port: {@code state} with its {@code ibv_port_state} code ({@code stateId}, 4 = ACTIVE), MTUs
     * in bytes, the non-empty GID table entries. {@code configured} is true for the ports the
     * configuration uses, which health watches. {@code counters} are the port and hardware
     * counters the device exposes (sysfs {@code counters/} and {@code hw_counters/}), as exact
     * unsigned numbers; the IB data counters ({@code port_xmit_data}) count 4-byte words.
     */
    public record PortDescriptor(int port, String state, int stateId, int maxMtu, int activeMtu, int lid, int smLid,
                                 String linkLayer, List<GidDescriptor> gids, boolean configured,
                                 Map<String, BigInteger> counters, Map<String, BigInteger> hardwareCounters) {
    }

    /**
     * A used GID table entry as {@code ibv_devinfo -v} prints it ({@code ::ffff:10.77.0.1, RoCE v2});
     * {@code netdev} is the network device it belongs to on RoCE, null on InfiniBand.
     */
    public record GidDescriptor(int index, String gid, String type, @Nullable String netdev) {
    }

    public record ResourceDescriptor(String name, String kind, String property, String description, boolean closed) {
    }

    /**
     * A completion counter: completions and errors counted so far and the value past which they
     * wrap to zero ({@code comp_count_max_value}), as exact unsigned numbers; {@code mode} says
     * who counts ({@code HARDWARE}: the device; {@code SOFTWARE}: the provider's completion path,
     * where the device has no completion counters, as on rxe; {@code SIMULATED}: the fabric).
     */
    public record CompletionCounterDescriptor(String name, CompletionCounterMode mode, BigInteger completions,
                                              BigInteger errors, BigInteger maxValue) {
    }

    /**
     * A completion queue: the entries it holds, how its poller waits ({@code POLLING},
     * {@code EVENT}, {@code ADAPTIVE}), and the completions the poller took by status
     * ({@code SUCCESS}, and each error status seen, such as {@code WR_FLUSH_ERR}).
     */
    public record CompletionQueueDescriptor(String name, int capacity, String polling,
                                            Map<CompletionStatus, Long> completions) {
    }

    /** A queue pair: its state ({@code RESET} ... {@code RTS}, {@code ERR}) and the work requests it has posted. */
    public record QueuePairDescriptor(String name, String type, int qpNumber, String state, int outstandingSends,
                                      int outstandingReceives) {
    }

    /**
     * A memory pool: buffers and how many are leased; {@code keys} only with
     * {@code rdma.endpoint.show-keys}, else {@code null}.
     */
    public record MemoryPoolDescriptor(String name, int bufferSize, int capacity, int leased,
                                       @Nullable MemoryKeys keys) {
    }

    /** What a peer needs to access a pool's memory: its keys, address and length in bytes. */
    public record MemoryKeys(String lkey, String rkey, String address, BigInteger length) {
    }

    /**
     * A flow with what its counters collected ({@code ibv_read_counters}), as exact unsigned
     * numbers; {@code packets} or {@code bytes} is {@code null} when the flow does not count it.
     */
    public record FlowDescriptor(String name, int port, @Nullable BigInteger packets, @Nullable BigInteger bytes) {
    }
}

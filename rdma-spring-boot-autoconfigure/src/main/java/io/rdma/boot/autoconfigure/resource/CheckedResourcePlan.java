package io.rdma.boot.autoconfigure.resource;

import io.rdma.boot.autoconfigure.RdmaProperties;
import io.rdma.boot.autoconfigure.resource.DevicePlan.CompletionQueuePlan;
import io.rdma.boot.autoconfigure.resource.DevicePlan.CounterPlan;
import io.rdma.boot.autoconfigure.resource.DevicePlan.FlowPlan;
import io.rdma.boot.autoconfigure.resource.DevicePlan.MemoryPoolPlan;
import io.rdma.boot.autoconfigure.resource.DevicePlan.ProtectionDomainPlan;
import io.rdma.boot.autoconfigure.resource.DevicePlan.QueuePairPlan;
import io.rdma.boot.autoconfigure.resource.DevicePlan.SharedReceiveQueuePlan;
import io.rdma.spring.resource.CompletionMode;
import io.rdma.spring.resource.CompletionPolling;
import io.rdma.spring.resource.ConnectionPlan;
import io.rdma.spring.resource.DeclaredResource;
import io.rdma.spring.resource.IdleBackoff;
import io.rdma.spring.resource.QueuePairAddress;
import io.rdma.spring.resource.RdmaCustomizer;
import io.rdma.spring.resource.ResourcePlan;
import io.rdma.spring.resource.SendTimeout;
import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.CounterDescription;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.ProviderSettings;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReliabilitySettings;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.provider.simulated.SharedFabric;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * The {@code rdma} properties read into a checked plan of devices and resources. Everything
 * that can be decided without a device is decided here, before anything is created: unknown
 * references, sizes that are not positive, unknown access flags and op kinds, overlapping
 * counter masks, op kinds the QP type cannot perform, remote access without local write, CQs
 * too small for their QPs, and names used twice. What depends on the device's limits is left
 * to {@link DeviceLimits}, once the device is open.
 */
public final class CheckedResourcePlan implements ResourcePlan {

    /** Bean name of the provider's device list. */
    public static final String VERBS_BEAN = "rdmaVerbs";
    /** Bean name of the {@code RdmaResources} that knows every resource. */
    public static final String RESOURCES_BEAN = "rdmaResources";

    /** Ports are numbered from 1 in a u8 (port_num of ibv_query_port, ibv_qp_attr, ibv_flow_attr). */
    static final int MAX_PORT = 255;
    /** A GID index is a u8 (sgid_index of ibv_global_route). */
    private static final int MAX_GID_INDEX = 255;

    private static final Set<CompletionCounterOp> UD_OPS = EnumSet.of(CompletionCounterOp.SEND, CompletionCounterOp.RECV);
    private static final Set<CompletionCounterOp> UC_OPS = EnumSet.of(CompletionCounterOp.SEND,
            CompletionCounterOp.RECV, CompletionCounterOp.RDMA_WRITE, CompletionCounterOp.REMOTE_RDMA_WRITE);

    private final RdmaProperties properties;
    private final List<DevicePlan> devices;
    private final ConnectionPlan connections;
    private final List<DeclaredResource> resources;
    /** What the memory pools read so far cost in heap and pinned memory. */
    private final MemoryBudget memory;
    /** Every bean name taken so far, with the property that took it. */
    private final Map<String, String> names = new HashMap<>();
    /** Every device opened so far, by the name the provider lists it by, with the property that names it. */
    private final Map<String, String> deviceNames = new HashMap<>();

    private CheckedResourcePlan(RdmaProperties properties, MemoryBudget memory) {
        this.properties = properties;
        this.memory = memory;
        names.put(VERBS_BEAN, "(the provider's device list)");
        names.put(RESOURCES_BEAN, "(the declared resources)");
        List<DevicePlan> read = new ArrayList<>();
        properties.getDevices().forEach((name, device) -> read.add(device(name, device)));
        this.devices = List.copyOf(read);
        this.connections = ConnectionPlanReader.read(properties.getConnections(), devices);
        Map<String, Integer> peersPerPrototype = connections.peersPerPrototype();
        devices.forEach(device -> checkCompletionQueueSizes(device, peersPerPrototype));
        notNegative(properties.getShutdown().getDrainTimeout(), RdmaProperties.PREFIX + ".shutdown.drain-timeout");
        this.resources = ResourceDeclarations.of(devices, connections);
    }

    /** How each declared completion queue is polled, by its name. */
    @Override
    public Map<String, CompletionPolling> completionPolling() {
        Map<String, CompletionPolling> polling = new LinkedHashMap<>();
        devices.forEach(device -> device.completionQueues().forEach(cq -> polling.put(cq.name(),
                new CompletionPolling(cq.mode(), cq.pollWindow(), cq.batchSize(), cq.idle(), cq.backoff()))));
        return polling;
    }


    /** How long the pollers wait at shutdown for outstanding sends ({@code rdma.shutdown.drain-timeout}). */
    @Override
    public Duration drainTimeout() {
        return properties.getShutdown().getDrainTimeout();
    }

    /** The listeners and outbound connections, checked against the declared queue pairs and prototypes. */
    @Override
    public ConnectionPlan connections() {
        return connections;
    }

    /** Reads and checks {@code properties}; {@link InvalidRdmaConfigurationException} names the first problem. */
    public static CheckedResourcePlan read(RdmaProperties properties) {
        return read(properties, MemoryBudget.ofThisJvm());
    }

    /** {@link #read(RdmaProperties)} against {@code memory}'s heap and physical memory. */
    static CheckedResourcePlan read(RdmaProperties properties, MemoryBudget memory) {
        return new CheckedResourcePlan(properties, memory);
    }

    /** What to warn of at start when the memory pools pin more than half of physical memory; empty when they do not. */
    public Optional<String> pinnedMemoryWarning() {
        return memory.pinnedMemoryWarning().map(MemoryBudget.PinnedMemoryWarning::message);
    }

    public ProviderKind provider() {
        return properties.getProvider();
    }

    List<DevicePlan> devices() {
        return devices;
    }

    /**
     * What the simulated fabric is opened with if it is selected: the devices it creates (those
     * under rdma.simulated plus every configured name) and, with rdma.simulated.fabric, the shared
     * fabric it joins.
     */
    public List<ProviderSettings> simulatedSettings() {
        List<ProviderSettings> settings = new ArrayList<>(SimulatedDevices.specs(properties, devices));
        String fabric = properties.getSimulated().getFabric();
        if (fabric != null && !fabric.isBlank()) {
            settings.add(new SharedFabric(fabric));
        }
        return settings;
    }

    /** The ports each device's configuration uses (the device's port, and those its QPs and flows name). */
    @Override
    public Map<String, List<Integer>> configuredPorts() {
        Map<String, List<Integer>> ports = new LinkedHashMap<>();
        for (DevicePlan device : devices) {
            SortedSet<Integer> used = new TreeSet<>(List.of(device.port()));
            device.queuePairs().forEach(qp -> used.add(qp.port()));
            device.flows().forEach(flow -> used.add(flow.spec().port()));
            ports.put(device.name(), List.copyOf(used));
        }
        return ports;
    }

    /** The port each queue pair and queue pair prototype connects with, and its memory pool, by name. */
    @Override
    public Map<String, QueuePairAddress> queuePairAddresses() {
        Map<String, QueuePairAddress> addresses = new LinkedHashMap<>();
        devices.forEach(device -> {
            device.queuePairs().forEach(qp -> addresses.put(qp.name(), address(qp)));
            device.queuePairPrototypes().forEach(qp -> addresses.put(qp.name(), address(qp)));
        });
        return addresses;
    }

    private static QueuePairAddress address(QueuePairPlan qp) {
        return new QueuePairAddress(qp.port(), qp.memoryPool());
    }

    /**
     * What a queue pair can be created from at run time, by name: every prototype (a QP per peer
     * or instance), and every declared queue pair that no flow steers packets to (made anew for a
     * reconnection; a flow is made for one queue pair).
     */
    Map<String, QueuePairPlan> creatableQueuePairs() {
        Map<String, QueuePairPlan> creatable = new LinkedHashMap<>();
        devices.forEach(device -> {
            Set<String> steered = device.flows().stream().map(FlowPlan::queuePair).collect(Collectors.toSet());
            device.queuePairs().stream().filter(qp -> !steered.contains(qp.name()))
                    .forEach(qp -> creatable.put(qp.name(), qp));
            device.queuePairPrototypes().forEach(qp -> creatable.put(qp.name(), qp));
        });
        return creatable;
    }


    /**
     * How long the template waits for send-queue room, by the name of each queue pair and
     * prototype (names are unique across the tree), the device's {@code queue-pair-defaults} applied.
     */
    @Override
    public Map<String, SendTimeout> sendTimeouts() {
        Map<String, SendTimeout> timeouts = new LinkedHashMap<>();
        devices.forEach(device -> {
            device.queuePairs().forEach(qp -> timeouts.put(qp.name(), qp.sendTimeout()));
            device.queuePairPrototypes().forEach(qp -> timeouts.put(qp.name(), qp.sendTimeout()));
        });
        return timeouts;
    }


    /** What each flow's counter points collect, by flow name, in index order. */
    @Override
    public Map<String, List<CounterDescription>> flowCounterPoints() {
        Map<String, List<CounterDescription>> points = new LinkedHashMap<>();
        devices.forEach(device -> device.flows().forEach(flow -> points.put(flow.name(), flow.counters())));
        return points;
    }

    /**
     * Every customizer names a declared resource of its kind (a queue pair customizer may name a
     * queue pair prototype): a name nothing declares fails the start rather than being ignored.
     */
    void checkCustomized(List<RdmaCustomizer<?>> customizers) {
        Map<ResourceKind, Set<String>> declaredByKind = new EnumMap<>(ResourceKind.class);
        resources.forEach(resource -> declaredByKind.computeIfAbsent(resource.kind(), kind -> new TreeSet<>())
                .add(resource.name()));
        devices.forEach(device -> device.queuePairPrototypes().forEach(prototype -> declaredByKind
                .computeIfAbsent(ResourceKind.QUEUE_PAIR, kind -> new TreeSet<>()).add(prototype.name())));
        for (RdmaCustomizer<?> customizer : customizers) {
            Set<String> declared = declaredByKind.getOrDefault(customizer.kind(), Set.of());
            if (!declared.contains(customizer.name())) {
                String kind = customizer.kind().name().toLowerCase(Locale.ROOT).replace('_', ' ');
                throw new InvalidRdmaConfigurationException(RdmaProperties.PREFIX + ".devices", "an RdmaCustomizer"
                        + " customizes " + kind + " '" + customizer.name() + "', and no " + kind + " of that name is"
                        + " declared; declared: " + declared, "Name a declared " + kind + " in the customizer, or"
                        + " declare one under " + RdmaProperties.PREFIX + ".devices.");
            }
        }
    }

    /** Every resource, in creation order; Spring destroys them in the reverse. */
    public List<DeclaredResource> resources() {
        return resources;
    }

    private void claim(String name, String property) {
        String previous = names.putIfAbsent(name, property);
        if (previous != null) {
            throw new InvalidRdmaConfigurationException(property, "the name '" + name + "' is already used by "
                    + previous, "Give every RDMA resource a name of its own: resources become beans named after"
                    + " their keys, so names must be unique across the whole 'rdma' tree.");
        }
    }

    /**
     * The name the provider lists the device by: its {@code name} where set, else its key. Two
     * keys on one device would open two contexts on it, each with resources, health and meters of
     * its own under the one device name, so the second fails.
     */
    private String claimDevice(String key, @Nullable String named, String property) {
        if (named != null && named.isBlank()) {
            throw new InvalidRdmaConfigurationException(property, "the device name is blank", "Set it to the"
                    + " device's name as ibv_devices lists it (rxe0, mlx5_0, siw0), or remove it to open the device"
                    + " named '" + key + "'.");
        }
        String deviceName = named != null ? named : key;
        String previous = deviceNames.putIfAbsent(deviceName, property);
        if (previous != null) {
            throw new InvalidRdmaConfigurationException(property, "device '" + deviceName + "' is already opened"
                    + " by " + previous + "; two device contexts on one device would each have resources, health"
                    + " and meters of their own", "Declare everything on device '" + deviceName + "' under one"
                    + " key of rdma.devices.");
        }
        return deviceName;
    }

    private DevicePlan device(String name, RdmaProperties.Device device) {
        String property = RdmaProperties.PREFIX + ".devices." + name;
        claim(name, property);
        String deviceNameProperty = device.getName() != null ? property + ".name" : property;
        String deviceName = claimDevice(name, device.getName(), deviceNameProperty);
        inRange(device.getPort(), 1, MAX_PORT, property + ".port", "a port number (u8 port_num, from 1)");
        if (device.getGidIndex() != null) {
            inRange(device.getGidIndex(), 0, MAX_GID_INDEX, property + ".gid-index", "a GID index (u8 sgid_index)");
        }
        RdmaProperties.QueuePairDefaults defaults = device.getQueuePairDefaults();
        String defaultsProperty = property + ".queue-pair-defaults";
        positive(defaults.getMaxSendWr(), defaultsProperty + ".max-send-wr");
        notNegative(defaults.getMaxRecvWr(), defaultsProperty + ".max-recv-wr");
        positive(defaults.getMaxSendSge(), defaultsProperty + ".max-send-sge");
        positive(defaults.getMaxRecvSge(), defaultsProperty + ".max-recv-sge");
        notNegative(defaults.getMaxInlineData(), defaultsProperty + ".max-inline-data");
        notNegative(defaults.getSendTimeout(), defaultsProperty + ".send-timeout");
        ReliabilitySettings reliabilityDefaults = ReliabilityReader.defaults(defaults.getReliability(),
                defaultsProperty + ".reliability");

        Map<String, CompletionQueuePlan> cqs = new LinkedHashMap<>();
        device.getCompletionQueues().forEach((cq, settings) ->
                cqs.put(cq, completionQueue(cq, property + ".completion-queues." + cq, settings)));
        Map<String, CounterPlan> counters = new LinkedHashMap<>();
        device.getCompletionCounters().forEach((counter, settings) ->
                counters.put(counter, counter(counter, property + ".completion-counters." + counter, settings)));
        List<ProtectionDomainPlan> pds = new ArrayList<>();
        device.getProtectionDomains().forEach((pd, settings) ->
                pds.add(protectionDomain(pd, property + ".protection-domains." + pd, settings, device,
                        reliabilityDefaults, cqs, counters)));
        Map<String, QueuePairPlan> qps = new LinkedHashMap<>();
        pds.forEach(pd -> pd.queuePairs().forEach(qp -> qps.put(qp.name(), qp)));
        List<FlowPlan> flows = new ArrayList<>();
        device.getFlows().forEach((flow, settings) ->
                flows.add(flow(flow, property + ".flows." + flow, settings, device, qps)));
        return new DevicePlan(name, property, deviceName, deviceNameProperty, device.getPort(), device.getGidIndex(),
                List.copyOf(cqs.values()), List.copyOf(counters.values()), pds, flows);
    }

    private CompletionQueuePlan completionQueue(String name, String property, RdmaProperties.CompletionQueue cq) {
        claim(name, property);
        positive(cq.getEntries(), property + ".entries");
        positive(cq.getBatchSize(), property + ".batch-size");
        notNegative(cq.getCompletionVector(), property + ".completion-vector");
        if (cq.getPollWindow().isNegative()) {
            throw new InvalidRdmaConfigurationException(property + ".poll-window", "the poll window "
                    + cq.getPollWindow() + " is negative", "Set a window of zero or more, e.g. 1ms.");
        }
        notNegative(cq.getIdleSpins(), property + ".idle-spins");
        notNegative(cq.getIdleYields(), property + ".idle-yields");
        if (cq.getIdleMinPark().isNegative()) {
            throw new InvalidRdmaConfigurationException(property + ".idle-min-park", "the first park of the idle"
                    + " back-off, " + cq.getIdleMinPark() + ", is negative", "Set a park of zero or more, e.g. 10us.");
        }
        if (cq.getIdleMaxPark().compareTo(cq.getIdleMinPark()) < 0) {
            throw new InvalidRdmaConfigurationException(property + ".idle-max-park", "the parks of the idle back-off"
                    + " would grow from " + cq.getIdleMinPark() + " (idle-min-park) down to " + cq.getIdleMaxPark(),
                    "Set idle-max-park to idle-min-park or more, e.g. 1ms.");
        }
        IdleBackoff backoff = new IdleBackoff(cq.getIdleSpins(), cq.getIdleYields(), cq.getIdleMinPark(),
                cq.getIdleMaxPark());
        String channel = null;
        if (cq.getMode() != CompletionMode.POLLING) {
            // awaitCompletions needs a channel no other CQ shares, so each sleeping CQ gets its own.
            channel = name + ".channel";
            claim(channel, property + ".mode");
        }
        return new CompletionQueuePlan(name, property, cq.getEntries(), cq.getMode(), cq.getPollWindow(),
                cq.getBatchSize(), cq.getIdle(), backoff, cq.getCompletionVector(), cq.isTimestamps(), channel);
    }

    private CounterPlan counter(String name, String property, RdmaProperties.CompletionCounter counter) {
        claim(name, property);
        String external = counter.getExternalMemory();
        if (external != null && external.isBlank()) {
            throw new InvalidRdmaConfigurationException(property + ".external-memory", "the file name is blank",
                    "Name a file (e.g. /dev/shm/" + name + ".cntr), or remove the property to keep the counts in"
                            + " provider memory.");
        }
        return new CounterPlan(name, property, external == null ? null : Path.of(external));
    }

    private ProtectionDomainPlan protectionDomain(String name, String property, RdmaProperties.ProtectionDomain pd,
                                                  RdmaProperties.Device device, ReliabilitySettings reliabilityDefaults,
                                                  Map<String, CompletionQueuePlan> cqs,
                                                  Map<String, CounterPlan> counters) {
        claim(name, property);
        Map<String, MemoryPoolPlan> pools = new LinkedHashMap<>();
        pd.getMemoryPools().forEach((pool, settings) ->
                pools.put(pool, memoryPool(pool, property + ".memory-pools." + pool, name, settings)));
        Map<String, SharedReceiveQueuePlan> srqs = new LinkedHashMap<>();
        pd.getSharedReceiveQueues().forEach((srq, settings) ->
                srqs.put(srq, sharedReceiveQueue(srq, property + ".shared-receive-queues." + srq, name, settings)));
        List<QueuePairPlan> qps = new ArrayList<>();
        pd.getQueuePairs().forEach((qp, settings) -> qps.add(queuePair(qp, property + ".queue-pairs." + qp, name,
                settings, device, reliabilityDefaults, cqs, counters, pools, srqs)));
        List<QueuePairPlan> prototypes = new ArrayList<>();
        pd.getQueuePairPrototypes().forEach((prototype, settings) -> prototypes.add(queuePair(prototype,
                property + ".queue-pair-prototypes." + prototype, name, settings, device, reliabilityDefaults, cqs,
                counters, pools, srqs)));
        return new ProtectionDomainPlan(name, property, List.copyOf(pools.values()), List.copyOf(srqs.values()), qps,
                prototypes);
    }

    private MemoryPoolPlan memoryPool(String name, String property, String pd, RdmaProperties.MemoryPool pool) {
        claim(name, property);
        long bufferSize = pool.getBufferSize().toBytes();
        if (bufferSize <= 0 || bufferSize > Integer.MAX_VALUE) {
            throw new InvalidRdmaConfigurationException(property + ".buffer-size", "the buffer size " + bufferSize
                    + " bytes is not between 1 byte and 2GiB", "Set a positive buffer size such as 4KiB.");
        }
        positive(pool.getCount(), property + ".count");
        Set<AccessFlag> access = pool.getAccess().isEmpty() ? EnumSet.noneOf(AccessFlag.class)
                : EnumSet.copyOf(pool.getAccess());
        boolean remoteWriting = access.contains(AccessFlag.REMOTE_WRITE) || access.contains(AccessFlag.REMOTE_ATOMIC);
        if (remoteWriting && !access.contains(AccessFlag.LOCAL_WRITE)) {
            throw new InvalidRdmaConfigurationException(property + ".access", "remote-write and remote-atomic"
                    + " require local-write (ibv_reg_mr fails with EINVAL otherwise)",
                    "Add local-write to the access list.");
        }
        MemoryPoolPlan plan = new MemoryPoolPlan(name, property, pd, (int) bufferSize, pool.getCount(), access);
        memory.add(plan, property);
        return plan;
    }

    private SharedReceiveQueuePlan sharedReceiveQueue(String name, String property, String pd,
                                                      RdmaProperties.SharedReceiveQueue srq) {
        claim(name, property);
        positive(srq.getMaxWr(), property + ".max-wr");
        positive(srq.getMaxSge(), property + ".max-sge");
        notNegative(srq.getLimit(), property + ".limit");
        if (srq.getLimit() >= srq.getMaxWr()) {
            throw new InvalidRdmaConfigurationException(property + ".limit", "the limit " + srq.getLimit()
                    + " is not below max-wr " + srq.getMaxWr(), "Set a limit below max-wr, or 0 to leave the"
                    + " limit event disarmed.");
        }
        return new SharedReceiveQueuePlan(name, property, pd, srq.getMaxWr(), srq.getMaxSge(), srq.getLimit());
    }

    private QueuePairPlan queuePair(String name, String property, String pd, RdmaProperties.QueuePair qp,
                                    RdmaProperties.Device device, ReliabilitySettings reliabilityDefaults,
                                    Map<String, CompletionQueuePlan> cqs,
                                    Map<String, CounterPlan> counters, Map<String, MemoryPoolPlan> pools,
                                    Map<String, SharedReceiveQueuePlan> srqs) {
        claim(name, property);
        String sendCq = reference(qp.getSendCq(), property + ".send-cq", cqs.keySet(), "completion queue",
                "completion-queues of the device");
        String recvCq = qp.getRecvCq() == null ? sendCq
                : reference(qp.getRecvCq(), property + ".recv-cq", cqs.keySet(), "completion queue",
                "completion-queues of the device");
        String srq = qp.getSrq() == null ? null : sharedReceiveQueue(qp.getSrq(), property + ".srq", pd, srqs, device);
        String pool = queuePairPool(qp.getMemoryPool(), property + ".memory-pool", pd, pools.keySet());
        RdmaProperties.QueuePairDefaults defaults = device.getQueuePairDefaults();
        int maxSendWr = orDefault(qp.getMaxSendWr(), defaults.getMaxSendWr());
        int maxRecvWr = srq != null ? 0 : orDefault(qp.getMaxRecvWr(), defaults.getMaxRecvWr());
        int maxSendSge = orDefault(qp.getMaxSendSge(), defaults.getMaxSendSge());
        int maxRecvSge = orDefault(qp.getMaxRecvSge(), defaults.getMaxRecvSge());
        int maxInline = orDefault(qp.getMaxInlineData(), defaults.getMaxInlineData());
        positive(maxSendWr, property + ".max-send-wr");
        if (srq == null) {
            positive(maxRecvWr, property + ".max-recv-wr");
        }
        positive(maxSendSge, property + ".max-send-sge");
        positive(maxRecvSge, property + ".max-recv-sge");
        notNegative(maxInline, property + ".max-inline-data");
        int port = orDefault(qp.getPort(), device.getPort());
        Integer gidIndex = qp.getGidIndex() != null ? qp.getGidIndex() : device.getGidIndex();
        inRange(port, 1, MAX_PORT, property + ".port", "a port number (u8 port_num, from 1)");
        if (gidIndex != null) {
            inRange(gidIndex, 0, MAX_GID_INDEX, property + ".gid-index", "a GID index (u8 sgid_index)");
        }
        Duration sendTimeout = qp.getSendTimeout() != null ? qp.getSendTimeout() : defaults.getSendTimeout();
        notNegative(sendTimeout, property + ".send-timeout");
        Map<String, Set<CompletionCounterOp>> attached = attachedCounters(property, qp, counters);
        ReliabilitySettings reliability = ReliabilityReader.of(qp.getType(), qp.getReliability(), property,
                reliabilityDefaults);
        return new QueuePairPlan(name, property, pd, qp.getType(), sendCq, recvCq, srq, pool,
                new QueuePairCapabilities(maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInline), port, gidIndex,
                qp.isSignalAll(), attached, new SendTimeout(sendTimeout, property + ".send-timeout"), reliability);
    }

    /**
     * The pool the template and listeners lease the QP's buffers from: the one it names, else its
     * PD's only one, else none (a QP of a PD without pools, used through raw verbs only). With
     * several pools and none named there is no telling which, so the plan fails here, naming the
     * property, rather than the first send or listener at start.
     */
    private static @Nullable String queuePairPool(@Nullable String named, String property, String pd,
                                                  Set<String> pools) {
        if (named != null) {
            return reference(named, property, pools, "memory pool", "memory-pools of protection domain '" + pd + "'");
        }
        if (pools.size() > 1) {
            throw new InvalidRdmaConfigurationException(property, "protection domain '" + pd + "' declares "
                    + pools.size() + " memory pools " + pools + " and the queue pair names none of them, so the"
                    + " RdmaTemplate and @RdmaListener methods cannot tell which to lease its buffers from",
                    "Set memory-pool to one of " + pools + ".");
        }
        return pools.isEmpty() ? null : pools.iterator().next();
    }

    /**
     * The QP's SRQ, which must be one of its own PD: an SRQ of another PD of the device is named
     * as such, since "not declared" would send the user looking for a typo.
     */
    private static String sharedReceiveQueue(String name, String property, String pd,
                                             Map<String, SharedReceiveQueuePlan> srqs, RdmaProperties.Device device) {
        if (!srqs.containsKey(name)) {
            device.getProtectionDomains().forEach((otherPd, settings) -> {
                if (!otherPd.equals(pd) && settings.getSharedReceiveQueues().containsKey(name)) {
                    throw new InvalidRdmaConfigurationException(property, "shared receive queue '" + name + "' belongs"
                            + " to protection domain '" + otherPd + "', and a queue pair of protection domain '" + pd
                            + "' can take receives only from an SRQ of its own PD (ibv_create_qp fails with EINVAL)",
                            "Declare the queue pair under protection domain '" + otherPd + "', or declare an SRQ under"
                                    + " the shared-receive-queues of '" + pd + "'.");
                }
            });
        }
        return reference(name, property, srqs.keySet(), "shared receive queue",
                "shared-receive-queues of protection domain '" + pd + "'");
    }

    private static Map<String, Set<CompletionCounterOp>> attachedCounters(String property, RdmaProperties.QueuePair qp,
                                                                       Map<String, CounterPlan> counters) {
        Map<String, Set<CompletionCounterOp>> attached = new LinkedHashMap<>();
        Map<CompletionCounterOp, String> countedBy = new HashMap<>();
        qp.getCompletionCounters().forEach((counter, opList) -> {
            String counterProperty = property + ".completion-counters." + counter;
            reference(counter, counterProperty, counters.keySet(), "completion counter",
                    "completion-counters of the device");
            if (opList.isEmpty()) {
                throw new InvalidRdmaConfigurationException(counterProperty, "no op kinds are listed",
                        "List the op kinds the counter counts, e.g. [send, rdma-write].");
            }
            Set<CompletionCounterOp> ops = EnumSet.copyOf(opList);
            Set<CompletionCounterOp> possible = switch (qp.getType()) {
                case RC -> EnumSet.allOf(CompletionCounterOp.class);
                case UC -> UC_OPS;
                case UD, RAW_PACKET -> UD_OPS;
            };
            for (CompletionCounterOp op : ops) {
                if (!possible.contains(op)) {
                    throw new InvalidRdmaConfigurationException(counterProperty, "a " + qp.getType()
                            + " queue pair never performs " + ConfiguredNames.nameOf(op)
                            + (qp.getType() == QueuePairType.UD ? " (UD carries no RDMA operations)" : ""),
                            "Count only " + possible.stream().map(ConfiguredNames::nameOf).toList() + " on a "
                                    + qp.getType() + " queue pair, or make it an RC queue pair.");
                }
                String other = countedBy.putIfAbsent(op, counter);
                if (other != null) {
                    throw new InvalidRdmaConfigurationException(counterProperty, "op kind " + ConfiguredNames.nameOf(op)
                            + " is also counted by '" + other + "' on this queue pair; overlapping op masks are"
                            + " refused (ibv_qp_attach_comp_cntr fails with EBUSY)",
                            "Let each op kind be counted by one counter per queue pair.");
                }
            }
            attached.put(counter, ops);
        });
        return attached;
    }

    private FlowPlan flow(String name, String property, RdmaProperties.Flow flow, RdmaProperties.Device device,
                          Map<String, QueuePairPlan> qps) {
        claim(name, property);
        String qpName = reference(flow.getQueuePair(), property + ".queue-pair", qps.keySet(), "queue pair",
                "queue-pairs of the device's protection domains");
        QueuePairType type = Objects.requireNonNull(qps.get(qpName)).type(); // reference found it
        if (type != QueuePairType.RAW_PACKET && type != QueuePairType.UD) {
            throw new InvalidRdmaConfigurationException(property + ".queue-pair", "flows steer to raw-packet or ud"
                    + " queue pairs, and '" + qpName + "' is " + type, "Point the flow at a raw-packet or ud queue pair.");
        }
        int port = orDefault(flow.getPort(), device.getPort());
        inRange(port, 1, MAX_PORT, property + ".port", "a port number (u8 port_num, from 1)");
        inRange(flow.getPriority(), 0, 0xFFFF, property + ".priority", "a flow priority (u16 in ibv_flow_attr)");
        // Kept as a list, not a set: the position of each entry is the counter index it is read at.
        List<CounterDescription> inOrder = flow.getCounters();
        String countersName = null;
        if (!inOrder.isEmpty()) {
            countersName = name + ".counters";
            claim(countersName, property + ".counters");
        }
        return new FlowPlan(name, property, qpName, FlowMatches.spec(port, flow, property), List.copyOf(inOrder),
                countersName);
    }

    /**
     * Every CQ must hold what its QPs can have outstanding; a prototype counts once per peer its
     * listeners may connect at once ({@code peersPerPrototype}).
     */
    private static void checkCompletionQueueSizes(DevicePlan device, Map<String, Integer> peersPerPrototype) {
        Map<String, Long> needed = new LinkedHashMap<>();
        Map<String, List<String>> users = new LinkedHashMap<>();
        for (ProtectionDomainPlan pd : device.protectionDomains()) {
            Map<String, SharedReceiveQueuePlan> srqs = new HashMap<>();
            pd.sharedReceiveQueues().forEach(srq -> srqs.put(srq.name(), srq));
            List<QueuePairPlan> qps = new ArrayList<>(pd.queuePairs());
            qps.addAll(pd.queuePairPrototypes());
            for (QueuePairPlan qp : qps) {
                long copies = peersPerPrototype.getOrDefault(qp.name(), pd.queuePairs().contains(qp) ? 1 : 0);
                String user = copies == 1 ? qp.name() : copies + " x " + qp.name();
                needed.merge(qp.sendCq(), copies * qp.capabilities().maxSendWr(), Long::sum);
                users.computeIfAbsent(qp.sendCq(), k -> new ArrayList<>()).add(user);
                String srq = qp.srq();
                // the queue pair's SRQ is one of its protection domain's (checked as the plan was built)
                long receives = srq == null ? qp.capabilities().maxRecvWr()
                        : Objects.requireNonNull(srqs.get(srq)).maxWr();
                needed.merge(qp.recvCq(), copies * receives, Long::sum);
                if (!qp.recvCq().equals(qp.sendCq())) {
                    users.computeIfAbsent(qp.recvCq(), k -> new ArrayList<>()).add(user);
                }
            }
        }
        Map<String, CompletionQueuePlan> cqs = new HashMap<>();
        device.completionQueues().forEach(cq -> cqs.put(cq.name(), cq));
        needed.forEach((cq, entries) -> {
            // the queue pairs' CQs are the device's (checked as the plan was built)
            CompletionQueuePlan plan = Objects.requireNonNull(cqs.get(cq));
            if (plan.entries() < entries) {
                throw new InvalidRdmaConfigurationException(plan.property() + ".entries", "the completion queue has "
                        + plan.entries() + " entries but its queue pairs " + users.get(cq) + " can have " + entries
                        + " work requests outstanding (send + receive WRs); a full CQ overruns and moves them to"
                        + " the error state (verbs manual §5.2)",
                        "Set entries to at least " + entries + ", or lower the queue pairs' max-send-wr/max-recv-wr"
                                + " (or the max-connections of listeners using their prototypes).");
            }
        });
    }

    static String reference(@Nullable String name, String property, Set<String> declared, String what, String where) {
        if (name == null || name.isBlank()) {
            if (declared.size() == 1 && what.equals("completion queue")) {
                return declared.iterator().next();
            }
            throw new InvalidRdmaConfigurationException(property, "no " + what + " is named"
                    + (declared.isEmpty() ? " and none is declared" : ""),
                    "Name one of " + declared + " (declared under " + where + ").");
        }
        if (!declared.contains(name)) {
            throw new InvalidRdmaConfigurationException(property, "there is no " + what + " named '" + name + "'",
                    declared.isEmpty() ? "Declare it under " + where + "."
                            : "Name one of " + declared + " (declared under " + where + "), or declare '" + name
                            + "' there.");
        }
        return name;
    }

    private static int orDefault(@Nullable Integer value, int fallback) {
        return value == null ? fallback : value;
    }

    static void positive(long value, String property) {
        if (value <= 0) {
            throw new InvalidRdmaConfigurationException(property, "the value " + value + " is not positive",
                    "Set a value of at least 1.");
        }
    }

    /** {@code value} is within {@code min..max}, the range the verbs give {@code what} (named with its C type). */
    static void inRange(long value, long min, long max, String property, String what) {
        if (value < min || value > max) {
            throw new InvalidRdmaConfigurationException(property, "the value " + value + " is out of range for " + what
                    + ", " + min + " to " + max, "Set a value from " + min + " to " + max + ".");
        }
    }

    static void notNegative(Duration value, String property) {
        if (value.isNegative()) {
            throw new InvalidRdmaConfigurationException(property, "the duration " + value + " is negative",
                    "Set a duration of zero or more, e.g. 5s.");
        }
    }

    static void notNegative(long value, String property) {
        if (value < 0) {
            throw new InvalidRdmaConfigurationException(property, "the value " + value + " is negative",
                    "Set a value of 0 or more.");
        }
    }
}

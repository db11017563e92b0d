package io.rdma.boot.autoconfigure.resource;

import io.rdma.boot.autoconfigure.RdmaProperties;
import io.rdma.boot.autoconfigure.preflight.GidUse;
import io.rdma.boot.autoconfigure.preflight.HostPreflight;
import io.rdma.boot.autoconfigure.preflight.HostRequirements;
import io.rdma.boot.autoconfigure.preflight.PortPreflight;
import io.rdma.boot.autoconfigure.resource.DevicePlan.CompletionQueuePlan;
import io.rdma.boot.autoconfigure.resource.DevicePlan.CounterPlan;
import io.rdma.boot.autoconfigure.resource.DevicePlan.FlowPlan;
import io.rdma.boot.autoconfigure.resource.DevicePlan.MemoryPoolPlan;
import io.rdma.boot.autoconfigure.resource.DevicePlan.ProtectionDomainPlan;
import io.rdma.boot.autoconfigure.resource.DevicePlan.QueuePairPlan;
import io.rdma.boot.autoconfigure.resource.DevicePlan.SharedReceiveQueuePlan;
import io.rdma.spring.resource.ConnectionPlan;
import io.rdma.spring.resource.DeclaredResource;
import io.rdma.spring.resource.ResourceLookup;
import io.rdma.verbs.api.CompletionChannel;
import io.rdma.verbs.api.CompletionCounter;
import io.rdma.verbs.api.CompletionCounterOptions;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionQueueOptions;
import io.rdma.verbs.api.Device;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.Flow;
import io.rdma.verbs.api.FlowCounters;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.SharedReceiveQueue;
import io.rdma.verbs.api.SharedReceiveQueueAttributes;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.api.VerbsResource;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Turns device plans into {@link DeclaredResource}s: what each bean depends on and how it is
 * created. The dependencies are exactly libibverbs' destroy constraints (verbs manual §11.3): a
 * resource depends on its parents, a QP also on its CQs, SRQ and every completion counter
 * attached to it, a CQ on its channel, a flow on its QP and its flow counters. Spring destroys
 * a bean only after every bean that depends on it, so its reverse destruction is a valid
 * libibverbs order; declaring them in reverse {@link ResourceKind} order makes it exactly the
 * manual's order.
 */
final class ResourceDeclarations {

    private final List<DeclaredResource> resources = new ArrayList<>();
    private final List<DevicePlan> devices;
    private final ConnectionPlan connections;

    private ResourceDeclarations(List<DevicePlan> devices, ConnectionPlan connections) {
        this.devices = devices;
        this.connections = connections;
    }

    static List<DeclaredResource> of(List<DevicePlan> devices, ConnectionPlan connections) {
        ResourceDeclarations declarations = new ResourceDeclarations(devices, connections);
        devices.forEach(declarations::device);
        // Creation order is the reverse of the destroy order; the sort is stable, so within a
        // kind resources are created (and, reversed, destroyed) in the order they are declared.
        Comparator<DeclaredResource> parentsFirst =
                Comparator.comparingInt((DeclaredResource resource) -> resource.kind().destroyRank()).reversed();
        return declarations.resources.stream().sorted(parentsFirst).toList();
    }

    private void device(DevicePlan device) {
        String name = device.name();
        declare(device.name(), ResourceKind.DEVICE_CONTEXT, DeviceContext.class, name, device.property(),
                List.of(CheckedResourcePlan.VERBS_BEAN), lookup -> open(device, hostRequirements(device), lookup));
        for (CompletionQueuePlan cq : device.completionQueues()) {
            completionQueue(name, cq);
        }
        for (CounterPlan counter : device.counters()) {
            declare(counter.name(), ResourceKind.COMPLETION_COUNTER, CompletionCounter.class, name, counter.property(),
                    List.of(name), lookup -> lookup.resource(name, DeviceContext.class).createCompletionCounter(
                            customized(counter.name(), counter.property(), CompletionCounterOptions.class,
                                    counterOptions(counter), lookup)));
        }
        for (ProtectionDomainPlan pd : device.protectionDomains()) {
            declare(pd.name(), ResourceKind.PROTECTION_DOMAIN, ProtectionDomain.class, name, pd.property(),
                    List.of(name), lookup -> lookup.resource(name, DeviceContext.class).allocateProtectionDomain());
            pd.memoryPools().forEach(pool -> memoryPool(name, pool));
            pd.sharedReceiveQueues().forEach(srq -> sharedReceiveQueue(name, srq));
            pd.queuePairs().forEach(qp -> queuePair(name, qp));
        }
        device.flows().forEach(flow -> flow(name, flow));
    }

    /**
     * Opens the device after the host checks, then checks its ports and settles the GID indexes
     * left unset before {@link DeviceLimits} compares the plan with the device.
     */
    private DeviceContext open(DevicePlan device, HostRequirements requirements, ResourceLookup lookup) {
        DeviceContext context;
        try {
            Device found = lookup.verbs().device(device.deviceName());
            HostPreflight.check(found, requirements);
            context = found.open();
        } catch (VerbsException e) {
            if (e.errno() != Errno.ENODEV) {
                throw e;
            }
            throw unknownDevice(device, lookup.verbs(), e);
        }
        try {
            Map<Integer, Integer> chosenGidIndexes = PortPreflight.check(context, device.property(), gidUses(device));
            DeviceLimits.verify(device.withGidIndexes(chosenGidIndexes), connections, context);
        } catch (RuntimeException e) {
            context.close();
            throw e;
        }
        return context;
    }

    /**
     * No device of that name, reported at the property that gives the name ({@code name} where
     * set, else the key). When the provider lists none at all, the reason it gives (a kernel
     * without RDMA support answers {@code ibv_get_device_list} with ENOSYS) is the cause, so it
     * belongs in the failure analysis, not only in the INFO line of the provider's selection.
     */
    private static InvalidRdmaConfigurationException unknownDevice(DevicePlan device, Verbs verbs, VerbsException e) {
        List<String> present = verbs.devices().stream().map(Device::name).toList();
        String property = device.deviceNameProperty();
        String problem = "provider '" + verbs.providerName() + "' has no device named '" + device.deviceName() + "'; ";
        if (present.isEmpty()) {
            return new InvalidRdmaConfigurationException(property, problem + "it lists no device at all: "
                    + verbs.selectionReason(), "Give this host an RDMA device (load its kernel driver and ib_uverbs,"
                    + " or rdma_rxe for Soft-RoCE on an Ethernet interface), or set rdma.provider to auto to run on"
                    + " the simulated fabric.", e);
        }
        return new InvalidRdmaConfigurationException(property, problem + "devices present: " + present,
                "Name a device that ibv_devices lists, or set rdma.provider to auto to run on the simulated"
                        + " fabric where the device is missing.", e);
    }

    /** The locked memory every device's pools pin (one process-wide limit) and the rdma_cm use of this device. */
    private HostRequirements hostRequirements(DevicePlan device) {
        List<DevicePlan> pinning = devices.stream().filter(plan -> plan.pinnedBytes() > 0).toList();
        String pinningProperty = (pinning.size() == 1 ? pinning.getFirst().property() : RdmaProperties.PREFIX
                + ".devices.*") + ".protection-domains.*.memory-pools";
        String connectionProperty = Stream.of(
                        connections.listeners().stream().filter(listener -> listener.device().equals(device.name()))
                                .map(ConnectionPlan.ListenerPlan::property),
                        connections.outbound().stream().filter(outbound -> outbound.device().equals(device.name()))
                                .map(ConnectionPlan.OutboundPlan::property),
                        connections.services().stream().filter(service -> service.device().equals(device.name()))
                                .map(ConnectionPlan.ServicePlan::property))
                .flatMap(properties -> properties).findFirst().orElse(null);
        return new HostRequirements(device.property(), devices.stream().mapToLong(DevicePlan::pinnedBytes).sum(),
                pinningProperty, connectionProperty);
    }

    /** The device's port and GID index first, so a choice for that port names the device's property. */
    private static List<GidUse> gidUses(DevicePlan device) {
        List<GidUse> uses = new ArrayList<>(List.of(new GidUse(device.port(), device.gidIndex(),
                device.property() + ".gid-index")));
        Stream.concat(device.queuePairs().stream(), device.queuePairPrototypes().stream()).forEach(qp ->
                uses.add(new GidUse(qp.port(), qp.gidIndex(), qp.property() + ".gid-index")));
        return uses;
    }

    private void completionQueue(String device, CompletionQueuePlan cq) {
        List<String> parents = new ArrayList<>(List.of(device));
        if (cq.channelName() != null) {
            declare(cq.channelName(), ResourceKind.COMPLETION_CHANNEL, CompletionChannel.class, device,
                    cq.property() + ".mode", List.of(device),
                    lookup -> lookup.resource(device, DeviceContext.class).createCompletionChannel());
            parents.add(cq.channelName());
        }
        declare(cq.name(), ResourceKind.COMPLETION_QUEUE, CompletionQueue.class, device, cq.property(), parents,
                lookup -> {
                    CompletionQueueOptions options = new CompletionQueueOptions(cq.entries(), null,
                            cq.completionVector(), cq.timestamps());
                    if (cq.channelName() != null) {
                        options = options.withChannel(lookup.resource(cq.channelName(), CompletionChannel.class));
                    }
                    CompletionQueueOptions customized = customized(cq.name(), cq.property(),
                            CompletionQueueOptions.class, options, lookup);
                    if (customized.channel() != options.channel()) {
                        throw rewired(cq.property() + ".mode", "completion queue", cq.name(), "completion channel");
                    }
                    return lookup.resource(device, DeviceContext.class).createCompletionQueue(customized);
                });
    }

    /**
     * External counter memory is mapped into an automatic arena: the provider keeps the
     * segments for as long as the counter lives, and the mapping goes only once nothing refers
     * to it, which is after the counter is destroyed.
     */
    private static CompletionCounterOptions counterOptions(CounterPlan counter) {
        if (counter.externalMemory() == null) {
            return CompletionCounterOptions.internalMemory();
        }
        try (FileChannel file = FileChannel.open(counter.externalMemory(), StandardOpenOption.CREATE,
                StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MemorySegment counts = file.map(FileChannel.MapMode.READ_WRITE, 0, 2 * Long.BYTES, Arena.ofAuto());
            return CompletionCounterOptions.externalMemory(counts.asSlice(0, Long.BYTES),
                    counts.asSlice(Long.BYTES, Long.BYTES));
        } catch (IOException e) {
            throw new InvalidRdmaConfigurationException(counter.property() + ".external-memory", "the file '"
                    + counter.externalMemory() + "' cannot be mapped: " + e.getMessage(),
                    "Name a file the service may create, read and write (e.g. under /dev/shm).", e);
        }
    }

    private void memoryPool(String device, MemoryPoolPlan pool) {
        declare(pool.name(), ResourceKind.MEMORY_POOL, MemoryPool.class, device, pool.property(),
                List.of(pool.protectionDomain()), lookup -> createMemoryPool(pool,
                        lookup.resource(pool.protectionDomain(), ProtectionDomain.class)));
    }

    /**
     * The plan refused pools above the machine's memory; what the JVM still cannot allocate (a
     * -XX:MaxDirectMemorySize below the pool, memory taken by others) fails this one allocation,
     * which is reported by the pool's property rather than as an OutOfMemoryError.
     */
    private static MemoryPool createMemoryPool(MemoryPoolPlan pool, ProtectionDomain pd) {
        try {
            return pd.createMemoryPool(pool.bufferSize(), pool.count(), pool.access());
        } catch (OutOfMemoryError e) {
            throw new InvalidRdmaConfigurationException(pool.property(), "the pool's " + pool.bytes() + " bytes ("
                    + pool.count() + " x " + pool.bufferSize() + ") cannot be allocated: " + e.getMessage(),
                    "Lower count or buffer-size, or give the JVM more memory (-XX:MaxDirectMemorySize).", e);
        }
    }

    private void sharedReceiveQueue(String device, SharedReceiveQueuePlan srq) {
        declare(srq.name(), ResourceKind.SHARED_RECEIVE_QUEUE, SharedReceiveQueue.class, device, srq.property(),
                List.of(srq.protectionDomain()), lookup -> lookup.resource(srq.protectionDomain(),
                        ProtectionDomain.class).createSharedReceiveQueue(customized(srq.name(), srq.property(),
                        SharedReceiveQueueAttributes.class,
                        new SharedReceiveQueueAttributes(srq.maxWr(), srq.maxSge(), srq.limit()), lookup)));
    }

    private void queuePair(String device, QueuePairPlan qp) {
        List<String> parents = new ArrayList<>(List.of(qp.protectionDomain(), qp.sendCq()));
        if (!qp.recvCq().equals(qp.sendCq())) {
            parents.add(qp.recvCq());
        }
        if (qp.srq() != null) {
            parents.add(qp.srq());
        }
        // A completion counter may only be destroyed once no QP is attached to it (EBUSY otherwise).
        parents.addAll(qp.counters().keySet());
        declare(qp.name(), ResourceKind.QUEUE_PAIR, QueuePair.class, device, qp.property(), parents,
                lookup -> createQueuePair(qp, lookup));
    }

    static QueuePair createQueuePair(QueuePairPlan qp, ResourceLookup lookup) {
        SharedReceiveQueue srq = qp.srq() == null ? null : lookup.resource(qp.srq(), SharedReceiveQueue.class);
        QueuePairOptions declared = new QueuePairOptions(qp.type(), lookup.resource(qp.sendCq(), CompletionQueue.class),
                lookup.resource(qp.recvCq(), CompletionQueue.class), srq, qp.capabilities(), qp.signalAll());
        QueuePairOptions options = customized(qp.name(), qp.property(), QueuePairOptions.class, declared, lookup);
        if (options.type() != declared.type() || options.sendCq() != declared.sendCq()
                || options.recvCq() != declared.recvCq() || options.srq() != declared.srq()) {
            throw rewired(qp.property(), "queue pair", qp.name(), "type, completion queues or shared receive queue");
        }
        QueuePair created = lookup.resource(qp.protectionDomain(), ProtectionDomain.class).createQueuePair(options);
        String counter = null;
        try {
            for (var attachment : qp.counters().entrySet()) {
                counter = attachment.getKey();
                created.attachCompletionCounter(lookup.resource(counter, CompletionCounter.class), attachment.getValue());
            }
        } catch (VerbsException e) {
            created.close();
            throw new RdmaResourceCreationException(qp.name(), ResourceKind.QUEUE_PAIR,
                    qp.property() + ".completion-counters." + counter, e);
        }
        return created;
    }

    private void flow(String device, FlowPlan flow) {
        List<String> parents = new ArrayList<>(List.of(flow.queuePair()));
        if (flow.countersName() != null) {
            declare(flow.countersName(), ResourceKind.FLOW_COUNTERS, FlowCounters.class, device,
                    flow.property() + ".counters", List.of(device), lookup -> {
                        FlowCounters counters = lookup.resource(device, DeviceContext.class).createFlowCounters();
                        try {
                            for (int index = 0; index < flow.counters().size(); index++) {
                                counters.attach(flow.counters().get(index), index);
                            }
                        } catch (RuntimeException e) {
                            counters.close();
                            throw e;
                        }
                        return counters;
                    });
            parents.add(flow.countersName());
        }
        declare(flow.name(), ResourceKind.FLOW, Flow.class, device, flow.property(), parents, lookup -> {
            FlowCounters counters = flow.countersName() == null ? null
                    : lookup.resource(flow.countersName(), FlowCounters.class);
            return lookup.resource(flow.queuePair(), QueuePair.class).createFlow(flow.spec(), counters);
        });
    }

    /** {@code declared}, as the application's customizers of {@code name} adjust it; never null. */
    private static <T> T customized(String name, String property, Class<T> optionsType, T declared,
                                    ResourceLookup lookup) {
        T customized = lookup.customize(name, optionsType, declared);
        if (customized == null) {
            throw new InvalidRdmaConfigurationException(property, "an RdmaCustomizer of '" + name
                    + "' returned no " + optionsType.getSimpleName(), "Return the options it was given,"
                    + " adjusted (e.g. options.withSignalAll(true)).");
        }
        return customized;
    }

    private static InvalidRdmaConfigurationException rewired(String property, String kind, String name,
                                                             String wiring) {
        return new InvalidRdmaConfigurationException(property, "an RdmaCustomizer of " + kind + " '" + name
                + "' changed its " + wiring + ", which the declaration sets: the beans are created and destroyed"
                + " in the order it gives", "Change the declaration's properties instead; a customizer adjusts"
                + " settings (capabilities, sizes, signaling), not wiring.");
    }

    private void declare(String name, ResourceKind kind, Class<? extends VerbsResource> type, String device,
                         String property, List<String> dependsOn, DeclaredResource.Creator creator) {
        resources.add(new DeclaredResource(name, kind, type, device, property, dependsOn, creator));
    }
}

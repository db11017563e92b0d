package io.rdma.boot.autoconfigure.fabric;

import io.rdma.boot.autoconfigure.fabric.DevicePlan.QueuePairPlan;
import io.rdma.verbs.api.CounterDescription;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.api.VerbsResource;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;

/**
 * Every resource the configuration declared, with its declaration: the view the actuator
 * endpoint, health indicator, metrics and completion pollers take of the fabric. It owns
 * nothing: each resource is a bean of its own and Spring destroys them, so this bean depends on
 * all of them and is destroyed before any of them.
 */
public final class RdmaFabric {

    private final Verbs verbs;
    private final List<ManagedResource> resources;
    private final Map<String, List<Integer>> configuredPorts;
    private final Map<String, List<CounterDescription>> flowCounterPoints;
    private final Map<String, FabricPlan.QueuePairAddress> queuePairAddresses;
    private final Map<String, QueuePairPlan> queuePairTemplates;
    private final Map<String, FabricPlan.SendTimeout> sendTimeouts;
    /**
     * The template each queue pair of {@link #createQueuePair} came from. Weak keys: the
     * connection layer closes and forgets those queue pairs, and an entry must not outlive them.
     */
    private final Map<QueuePair, String> createdFromTemplate = Collections.synchronizedMap(new WeakHashMap<>());
    private final ConnectionPlan connections;
    private final ResourceLookup lookup;

    RdmaFabric(Verbs verbs, List<ManagedResource> resources, FabricPlan plan, ResourceLookup lookup) {
        this.verbs = verbs;
        this.resources = List.copyOf(resources);
        this.configuredPorts = plan.configuredPorts();
        this.flowCounterPoints = plan.flowCounterPoints();
        this.queuePairAddresses = plan.queuePairAddresses();
        this.queuePairTemplates = plan.queuePairTemplates();
        this.sendTimeouts = plan.sendTimeouts();
        this.connections = plan.connections();
        this.lookup = lookup;
    }

    /** The declared listeners and outbound connections. */
    public ConnectionPlan connections() {
        return connections;
    }

    /**
     * A new queue pair from template {@code template}, on the template's PD and CQs with its
     * counters attached; the caller owns it and closes it before the fabric's resources go.
     */
    public QueuePair createQueuePair(String template) {
        QueuePairPlan plan = queuePairTemplates.get(template);
        if (plan == null) {
            throw new IllegalArgumentException("no queue pair template named '" + template + "' is declared;"
                    + " declared: " + queuePairTemplates.keySet());
        }
        QueuePair created = ResourceDeclarations.createQueuePair(plan, lookup);
        createdFromTemplate.put(created, template);
        return created;
    }

    /**
     * How long the template waits for room in {@code qp}'s full send queue, and the property that
     * sets it: the declared queue pair's {@code send-timeout}, that of the template a
     * {@link #createQueuePair created} one came from, or else its device's
     * {@code queue-pair-defaults.send-timeout}.
     */
    public FabricPlan.SendTimeout sendTimeout(QueuePair qp) {
        String device = qp.context().deviceName();
        String source = resources.stream().filter(managed -> managed.resource() == qp).map(ManagedResource::name)
                .findFirst().orElseGet(() -> createdFromTemplate.getOrDefault(qp, device));
        FabricPlan.SendTimeout timeout = sendTimeouts.get(source);
        if (timeout == null) {
            throw new IllegalArgumentException(qp + " is on device '" + device + "', which is not configured under "
                    + "rdma.devices, so no send-timeout applies to it");
        }
        return timeout;
    }

    /** The port and memory pool the configuration gives queue pair (or template) {@code name}. */
    public FabricPlan.QueuePairAddress queuePairAddress(String name) {
        FabricPlan.QueuePairAddress address = queuePairAddresses.get(name);
        if (address == null) {
            throw new IllegalArgumentException("no queue pair named '" + name + "' is declared; declared: "
                    + queuePairAddresses.keySet());
        }
        return address;
    }

    /** What the counter points of flow {@code flow} collect, in index order; empty without flow counters. */
    public List<CounterDescription> flowCounterPoints(String flow) {
        return flowCounterPoints.getOrDefault(flow, List.of());
    }

    /** The ports the configuration uses on {@code device}: those health watches and metrics report. */
    public List<Integer> configuredPorts(String device) {
        return configuredPorts.getOrDefault(device, List.of());
    }

    /** A declared resource and the object created for it. */
    public record ManagedResource(DeclaredResource declaration, VerbsResource resource) {

        public String name() {
            return declaration.name();
        }
    }

    public Verbs verbs() {
        return verbs;
    }

    /** Every resource, in creation order. */
    public List<ManagedResource> resources() {
        return resources;
    }

    /** The resources of one type (for example every {@code CompletionQueue}), in creation order. */
    public <T extends VerbsResource> List<Named<T>> resources(Class<T> type) {
        return resources.stream().filter(managed -> type.isInstance(managed.resource()))
                .map(managed -> new Named<>(managed.name(), managed.declaration(), type.cast(managed.resource())))
                .toList();
    }

    public Optional<ManagedResource> resource(String name) {
        return resources.stream().filter(managed -> managed.name().equals(name)).findFirst();
    }

    /** A typed resource with its name and declaration. */
    public record Named<T extends VerbsResource>(String name, DeclaredResource declaration, T resource) {
    }
}

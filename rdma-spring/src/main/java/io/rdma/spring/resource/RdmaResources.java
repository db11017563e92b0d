package io.rdma.spring.resource;

import io.rdma.verbs.api.CounterDescription;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.api.VerbsResource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every resource the configuration declared, with its declaration: the view the actuator
 * endpoint, health indicator, metrics and completion pollers take of them. It owns
 * nothing: under Boot each resource is a bean of its own and Spring destroys them, so this bean
 * depends on all of them and is destroyed before any of them; in plain Spring
 * ({@link #builder(Verbs)}) they are the application's.
 */
public final class RdmaResources {

    private final Verbs verbs;
    private final List<ManagedResource> resources;
    private final Map<String, List<Integer>> configuredPorts;
    private final Map<String, List<CounterDescription>> flowCounterPoints;
    private final Map<String, QueuePairAddress> queuePairAddresses;
    private final Map<String, SendTimeout> sendTimeouts;
    private final Map<String, CompletionPolling> completionPolling;
    private final Duration drainTimeout;
    private final ConnectionPlan connections;
    private final QueuePairFactory queuePairs;
    /** Declared queue pairs made anew for a reconnection ({@link #renew}), by name: what their names find now. */
    private final Map<String, QueuePair> renewed = new ConcurrentHashMap<>();

    /**
     * {@code resources}: every declared resource, created, in creation order,
     * described by {@code plan}; {@code queuePairs} creates the queue pairs of prototypes, and
     * declared ones anew.
     */
    public RdmaResources(Verbs verbs, List<ManagedResource> resources, ResourcePlan plan,
                         QueuePairFactory queuePairs) {
        this.verbs = verbs;
        this.resources = List.copyOf(resources);
        this.configuredPorts = plan.configuredPorts();
        this.flowCounterPoints = plan.flowCounterPoints();
        this.queuePairAddresses = plan.queuePairAddresses();
        this.sendTimeouts = plan.sendTimeouts();
        this.completionPolling = plan.completionPolling();
        this.drainTimeout = plan.drainTimeout();
        this.connections = plan.connections();
        this.queuePairs = queuePairs;
    }

    /**
     * Declares, in code, verbs objects the application created itself: the way in for plain
     * Spring without Boot, where no {@code rdma.*} properties are read. The objects stay the
     * application's to close.
     */
    public static RdmaResourcesBuilder builder(Verbs verbs) {
        return new RdmaResourcesBuilder(verbs);
    }

    /** The declared listeners and outbound connections. */
    public ConnectionPlan connections() {
        return connections;
    }

    /**
     * A new queue pair from prototype {@code prototype}, on the prototype's PD and CQs with its
     * counters attached; the caller owns it and closes it before the declared resources go.
     */
    public QueuePair createQueuePair(String prototype) {
        return queuePairs.create(prototype);
    }

    /**
     * Whether declared queue pair {@code queuePair} can be made anew ({@link #renew}): not one the
     * application made itself ({@link #builder}), nor one that flows steer packets to.
     */
    public boolean isRenewable(String queuePair) {
        return queuePairs.creates(queuePair)
                && resource(queuePair).filter(managed -> managed.resource() instanceof QueuePair).isPresent();
    }

    /**
     * Declared queue pair {@code queuePair} made anew from its declaration, for the next connection
     * of the connection that runs on it: from now on its name finds the new one here (in
     * {@link #resources()}, the actuator, the metrics), while its bean stays the first. The caller
     * closes the one it replaces, and the new one before the declared resources go.
     *
     * @throws IllegalArgumentException when it is not {@link #isRenewable renewable}
     */
    public QueuePair renew(String queuePair) {
        if (!isRenewable(queuePair)) {
            throw new IllegalArgumentException("declared queue pair '" + queuePair + "' cannot be made anew");
        }
        QueuePair fresh = queuePairs.create(queuePair);
        renewed.put(queuePair, fresh);
        return fresh;
    }

    /** Whether {@code qp} was made by {@link #renew}, in place of a declared queue pair's bean, and is the caller's to close. */
    public boolean isRenewed(QueuePair qp) {
        return renewed.containsValue(qp);
    }

    /** How declared completion queue {@code cq} is polled, as the checked configuration says. */
    public CompletionPolling completionPolling(String cq) {
        CompletionPolling polling = completionPolling.get(cq);
        if (polling == null) {
            throw new IllegalArgumentException("no completion queue named '" + cq + "' is declared under rdma.devices");
        }
        return polling;
    }

    /** How long the pollers wait at shutdown for outstanding sends before flushing them. */
    public Duration drainTimeout() {
        return drainTimeout;
    }

    /**
     * How long the template waits for room in a full send queue of declared queue pair (or queue
     * pair prototype) {@code queuePair}, and the property that sets it: its own
     * {@code send-timeout}, or else its device's {@code queue-pair-defaults.send-timeout}.
     */
    public SendTimeout sendTimeout(String queuePair) {
        SendTimeout timeout = sendTimeouts.get(queuePair);
        if (timeout == null) {
            throw new IllegalArgumentException("no queue pair or queue pair prototype named '" + queuePair
                    + "' is declared under rdma.devices");
        }
        return timeout;
    }

    /** The port and memory pool the configuration gives queue pair (or prototype) {@code name}. */
    public QueuePairAddress queuePairAddress(String name) {
        QueuePairAddress address = queuePairAddresses.get(name);
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

    /** Every resource, in creation order; a declared queue pair made anew ({@link #renew}) is the one there now. */
    public List<ManagedResource> resources() {
        if (renewed.isEmpty()) {
            return resources;
        }
        return resources.stream().map(managed -> {
            QueuePair now = renewed.get(managed.name());
            return now == null ? managed : new ManagedResource(managed.declaration(), now);
        }).toList();
    }

    /** The resources of one type (for example every {@code CompletionQueue}), in creation order. */
    public <T extends VerbsResource> List<Named<T>> resources(Class<T> type) {
        return resources().stream().filter(managed -> type.isInstance(managed.resource()))
                .map(managed -> new Named<>(managed.name(), managed.declaration(), type.cast(managed.resource())))
                .toList();
    }

    public Optional<ManagedResource> resource(String name) {
        // not through resources(): the metrics look a queue pair up by name at each scrape
        QueuePair now = renewed.get(name);
        return resources.stream().filter(managed -> managed.name().equals(name)).findFirst()
                .map(managed -> now == null ? managed : new ManagedResource(managed.declaration(), now));
    }

    /**
     * The declared resource {@code resource} was created for, found by identity: how an async
     * event's resource gets the name the configuration gives it. Empty for what the
     * configuration does not declare (a listener's per-peer queue pairs).
     */
    public Optional<ManagedResource> declarationOf(VerbsResource resource) {
        return resources().stream().filter(managed -> managed.resource() == resource).findFirst();
    }

    /** A typed resource with its name and declaration. */
    public record Named<T extends VerbsResource>(String name, DeclaredResource declaration, T resource) {
    }
}

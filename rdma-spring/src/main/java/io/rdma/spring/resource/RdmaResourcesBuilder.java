package io.rdma.spring.resource;

import io.rdma.spring.naming.UnknownRdmaNameException;
import io.rdma.spring.resource.ConnectionPlan.ListenerPlan;
import io.rdma.spring.resource.ConnectionPlan.OutboundPlan;
import io.rdma.spring.resource.ConnectionPlan.ServicePlan;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CounterDescription;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.api.VerbsResource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Declares, in code, the verbs objects an application created itself, for plain Spring without
 * Boot ({@code @EnableRdma}), where no {@code rdma.*} properties are read: named device contexts,
 * completion queues with how they are polled, memory pools, queue pairs with the pool their
 * buffers come from and how long their sends wait for room, and optionally the connections that
 * bring queue pairs up. {@link #build()} checks the declaration and makes the
 * {@link RdmaResources} the programming model runs on.
 *
 * <pre>{@code
 * @Bean
 * RdmaResources rdmaResources(Verbs verbs, DeviceContext sim0) {
 *     ProtectionDomain pd = sim0.allocateProtectionDomain();
 *     CompletionQueue cq = sim0.createCompletionQueue(1024);
 *     MemoryPool buffers = pd.createMemoryPool(4096, 256, EnumSet.of(AccessFlag.LOCAL_WRITE));
 *     QueuePair rpc = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, cq, QueuePairCapabilities.of(64, 64)));
 *     // ... connect rpc to its peer (QueuePair.connect), or declare a connection that does
 *     return RdmaResources.builder(verbs)
 *             .device("sim0", sim0, 1)
 *             .completionQueue("cq0", cq, new CompletionPolling(CompletionMode.ADAPTIVE, Duration.ofMillis(1), 16))
 *             .memoryPool("buffers", buffers)
 *             .queuePair("rpc", rpc, "buffers", Duration.ofSeconds(5))
 *             .build();
 * }
 * }</pre>
 *
 * <p><b>Ownership.</b> The objects stay the application's: neither the builder nor
 * {@link RdmaResources} closes any of them. Close them after the programming model's beans have
 * stopped, which Spring does when they are beans the {@code RdmaResources} bean depends on: a
 * {@code Verbs} and a {@code DeviceContext} bean (both {@code AutoCloseable}, so Spring closes
 * them) whose close cascades to everything made on them, in libibverbs' destroy order.
 *
 * <p>Queue pair prototypes (a queue pair per accepted peer or discovered instance) are declared
 * only through the Boot auto-configuration; a {@link ConnectionPlan} given here names declared
 * queue pairs.
 */
public final class RdmaResourcesBuilder {

    /** What messages name as the place where these resources are declared. */
    private static final String SITE = "RdmaResources.builder(verbs)";

    private record DeclaredQueuePair(QueuePair queuePair, @Nullable String memoryPool, Duration sendTimeout) {
    }

    private final Verbs verbs;
    private final Map<String, DeviceContext> devices = new LinkedHashMap<>();
    private final Map<String, Integer> ports = new LinkedHashMap<>();
    private final Map<String, CompletionQueue> completionQueues = new LinkedHashMap<>();
    private final Map<String, CompletionPolling> polling = new LinkedHashMap<>();
    private final Map<String, MemoryPool> memoryPools = new LinkedHashMap<>();
    private final Map<String, DeclaredQueuePair> queuePairs = new LinkedHashMap<>();
    private ConnectionPlan connections = new ConnectionPlan(List.of(), List.of(), List.of());
    private Duration drainTimeout = Duration.ofSeconds(2);

    RdmaResourcesBuilder(Verbs verbs) {
        this.verbs = Objects.requireNonNull(verbs, "verbs");
    }

    /**
     * Device context {@code name}, whose queue pairs connect from {@code port}: every completion
     * queue, pool and queue pair declared here must be made on a declared device.
     */
    public RdmaResourcesBuilder device(String name, DeviceContext context, int port) {
        unique(name);
        devices.put(name, Objects.requireNonNull(context, "context"));
        ports.put(name, port);
        return this;
    }

    /**
     * Completion queue {@code name}, polled as {@code howPolled} says by a poller of its own
     * while the context runs. Every queue pair declared here must complete into declared queues:
     * completions of any other are never taken.
     */
    public RdmaResourcesBuilder completionQueue(String name, CompletionQueue cq, CompletionPolling howPolled) {
        unique(name);
        completionQueues.put(name, Objects.requireNonNull(cq, "cq"));
        polling.put(name, Objects.requireNonNull(howPolled, "howPolled"));
        return this;
    }

    /** Memory pool {@code name}, which queue pairs name to send from and receive into. */
    public RdmaResourcesBuilder memoryPool(String name, MemoryPool pool) {
        unique(name);
        memoryPools.put(name, Objects.requireNonNull(pool, "pool"));
        return this;
    }

    /**
     * Queue pair {@code name}, a channel of that name for the template and {@code @RdmaListener}
     * methods: its buffers come from declared pool {@code memoryPool} (null: none, and then only
     * the application posts on it), and its operations wait up to {@code sendTimeout} for room in
     * a full send queue. Declared queue pairs no connection brings up are UP channels at once: the
     * application has connected them, or will before it uses them.
     */
    public RdmaResourcesBuilder queuePair(String name, QueuePair qp, @Nullable String memoryPool,
                                          Duration sendTimeout) {
        unique(name);
        if (sendTimeout.isNegative()) {
            throw new IllegalArgumentException(SITE + ".queuePair(\"" + name + "\", ...) sets a negative send"
                    + " timeout, " + sendTimeout + "; give zero or more");
        }
        queuePairs.put(name, new DeclaredQueuePair(Objects.requireNonNull(qp, "qp"), memoryPool, sendTimeout));
        return this;
    }

    /** The listeners and outbound connections that bring declared queue pairs up; none by default. */
    public RdmaResourcesBuilder connections(ConnectionPlan plan) {
        this.connections = Objects.requireNonNull(plan, "plan");
        return this;
    }

    /** How long the pollers wait at shutdown for outstanding sends before flushing them; 2 s by default. */
    public RdmaResourcesBuilder drainTimeout(Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException(SITE + ".drainTimeout(" + timeout + ") is negative; give zero or more");
        }
        this.drainTimeout = timeout;
        return this;
    }

    /**
     * The resources, checked: each is on a declared device, each queue pair's pool is declared
     * and its completion queues are, and every connection names a declared device and queue pair.
     *
     * @throws UnknownRdmaNameException when a name given names nothing declared
     * @throws IllegalArgumentException when a resource is not on a declared device, or a queue
     *                                  pair completes into an undeclared completion queue
     */
    public RdmaResources build() {
        List<RdmaResources.ManagedResource> managed = new ArrayList<>();
        devices.forEach((name, context) -> managed.add(managed(name, context, name, "device")));
        completionQueues.forEach((name, cq) -> managed.add(managed(name, cq, deviceOf(name, cq), "completionQueue")));
        memoryPools.forEach((name, pool) -> managed.add(managed(name, pool, deviceOf(name, pool), "memoryPool")));
        Map<String, QueuePairAddress> addresses = new LinkedHashMap<>();
        Map<String, SendTimeout> sendTimeouts = new LinkedHashMap<>();
        Map<String, List<Integer>> configuredPorts = new LinkedHashMap<>();
        queuePairs.forEach((name, declared) -> {
            String site = SITE + ".queuePair(\"" + name + "\", ...)";
            String device = deviceOf(name, declared.queuePair());
            String pool = declared.memoryPool();
            if (pool != null && !memoryPools.containsKey(pool)) {
                throw new UnknownRdmaNameException("memory pool", pool, site, memoryPools.keySet(),
                        SITE + ".memoryPool(name, pool)");
            }
            declaredCompletionQueue(name, "send", declared.queuePair().sendCompletionQueue());
            declaredCompletionQueue(name, "receive", declared.queuePair().receiveCompletionQueue());
            int port = Objects.requireNonNull(ports.get(device)); // device() declared both
            addresses.put(name, new QueuePairAddress(port, pool));
            sendTimeouts.put(name, new SendTimeout(declared.sendTimeout(), "the send timeout of " + site));
            configuredPorts.computeIfAbsent(device, key -> new ArrayList<>()).add(port);
            managed.add(managed(name, declared.queuePair(), device, "queuePair"));
        });
        checkConnections();
        configuredPorts.replaceAll((device, used) -> used.stream().distinct().sorted().toList());
        ResourcePlan plan = new DeclaredPlan(Map.copyOf(configuredPorts), Map.copyOf(polling), Map.copyOf(addresses),
                Map.copyOf(sendTimeouts), Map.of(), drainTimeout, connections);
        return new RdmaResources(verbs, managed, plan, new QueuePairFactory() {
            @Override
            public QueuePair create(String name) {
                throw new IllegalArgumentException("no queue pair prototype named '" + name + "' is declared, and"
                        + " the application's own queue pairs are not made anew: " + SITE + " declares no prototype");
            }

            @Override
            public boolean creates(String name) {
                return false; // the application made them: a reconnection resets them instead
            }
        });
    }

    private void unique(String name) {
        Objects.requireNonNull(name, "name");
        if (devices.containsKey(name) || completionQueues.containsKey(name) || memoryPools.containsKey(name)
                || queuePairs.containsKey(name)) {
            throw new IllegalArgumentException(SITE + " declares '" + name + "' twice; every device, completion"
                    + " queue, memory pool and queue pair needs a name of its own");
        }
    }

    /** The name of the declared device {@code resource} was made on. */
    private String deviceOf(String name, VerbsResource resource) {
        return devices.entrySet().stream().filter(device -> device.getValue() == resource.context())
                .map(Map.Entry::getKey).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(SITE + " declares '" + name + "', made on device "
                        + resource.context().deviceName() + ", which it does not declare; declare it with"
                        + " device(name, context, port)"));
    }

    private void declaredCompletionQueue(String queuePair, String queue, CompletionQueue cq) {
        if (!completionQueues.containsValue(cq)) {
            throw new IllegalArgumentException(SITE + " declares queue pair '" + queuePair + "', whose " + queue
                    + " completion queue it does not declare: its completions would never be taken. Declare it"
                    + " with completionQueue(name, cq, polling)");
        }
    }

    private void checkConnections() {
        String where = SITE + ".connections(plan)";
        for (ListenerPlan listener : connections.listeners()) {
            checkConnection(listener.name(), listener.device(), listener.queuePair(), where);
        }
        for (OutboundPlan outbound : connections.outbound()) {
            checkConnection(outbound.name(), outbound.device(), outbound.queuePair(), where);
        }
        for (ServicePlan service : connections.services()) {
            checkConnection(service.name(), service.device(), service.queuePair(), where);
        }
    }

    /** A connection runs on a declared queue pair of a declared device: prototypes are not declared here. */
    private void checkConnection(String connection, String device, @Nullable String queuePair, String where) {
        String site = where + ", connection '" + connection + "'";
        if (!devices.containsKey(device)) {
            throw new UnknownRdmaNameException("device", device, site, devices.keySet(),
                    SITE + ".device(name, context, port)");
        }
        if (queuePair == null) {
            throw new IllegalArgumentException(site + " runs on a queue pair prototype, which only the Boot"
                    + " auto-configuration declares; name a queue pair declared with queuePair(name, qp, pool,"
                    + " sendTimeout)");
        }
        if (!queuePairs.containsKey(queuePair)) {
            throw new UnknownRdmaNameException("queue pair", queuePair, site, queuePairs.keySet(),
                    SITE + ".queuePair(name, qp, pool, sendTimeout)");
        }
    }

    private static RdmaResources.ManagedResource managed(String name, VerbsResource resource, String device,
                                                        String method) {
        DeclaredResource declaration = new DeclaredResource(name, resource.kind(), resource.getClass(), device,
                SITE + "." + method + "(\"" + name + "\", ...)", List.of(), lookup -> resource);
        return new RdmaResources.ManagedResource(declaration, resource);
    }

    /** The plan of resources declared in code: the {@link ResourcePlan} that the auto-configuration otherwise reads from properties. */
    private record DeclaredPlan(Map<String, List<Integer>> configuredPorts, Map<String, CompletionPolling> completionPolling,
                                Map<String, QueuePairAddress> queuePairAddresses, Map<String, SendTimeout> sendTimeouts,
                                Map<String, List<CounterDescription>> flowCounterPoints, Duration drainTimeout,
                                ConnectionPlan connections) implements ResourcePlan {
    }
}

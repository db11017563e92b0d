package io.rdma.spring.connection;

import io.rdma.spring.resource.ConnectionPlan.ServicePlan;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.ConnectionManager;
import io.rdma.verbs.api.QueuePair;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The outbound connections to the instances of one discovered service: on each {@link #refresh}
 * it reads the service's instances, gives each new one (up to {@code max-instances}) a queue pair
 * of the prototype and an {@link OutboundConnection} that connects in the background, and retires
 * the connection of each instance that left (or moved to another address): its connection closes
 * and then its queue pair, in libibverbs' order. Each instance's connection is named
 * {@code <connection>@<instance id>}, the name the {@code RdmaTemplate} sends on.
 */
final class ServiceConnection {

    private static final Log logger = LogFactory.getLog(ServiceConnection.class);

    /** An instance's connection, on a queue pair of its own. */
    private record Member(ServiceInstanceEndpoint endpoint, String name, QueuePair queuePair,
                          OutboundConnection connection) {
    }

    private final ServicePlan plan;
    private final RdmaServiceDiscovery discovery;
    private final ConnectionManager manager;
    private final LoopbackRoute route;
    private final RdmaResources resources;
    private final RdmaConnections hub;
    private final Map<String, Member> members = new LinkedHashMap<>();
    private volatile int known;
    private volatile @Nullable String lastFailure;

    ServiceConnection(ServicePlan plan, RdmaServiceDiscovery discovery, ConnectionManager manager, LoopbackRoute route,
                      RdmaResources resources, RdmaConnections hub) {
        this.plan = plan;
        this.discovery = discovery;
        this.manager = manager;
        this.route = route;
        this.resources = resources;
        this.hub = hub;
    }

    /**
     * Reads the service's instances and follows them; a discovery client that fails leaves the
     * members as they are. The read is made outside the lock: a registry that is slow to answer
     * must not hold up {@link #status()}, which health checks call. Only the hub's one refresh
     * thread calls this.
     */
    void refresh() {
        List<ServiceInstanceEndpoint> found;
        try {
            found = discovery.endpoints(plan.service(), plan.listener());
        } catch (RuntimeException e) {
            lastFailure = "the discovery client failed: " + e.getMessage();
            logger.warn("RDMA connection '" + plan.name() + "': the instances of service '" + plan.service()
                    + "' could not be read; the connections stay as they are", e);
            return;
        }
        follow(found);
    }

    private synchronized void follow(List<ServiceInstanceEndpoint> found) {
        Map<String, ServiceInstanceEndpoint> current = new LinkedHashMap<>();
        found.forEach(endpoint -> current.putIfAbsent(endpoint.instanceId(), endpoint));
        known = current.size();
        List<Member> leaving = new ArrayList<>();
        members.values().removeIf(member -> {
            boolean left = !member.endpoint().equals(current.get(member.endpoint().instanceId()));
            if (left) {
                leaving.add(member);
            }
            return left;
        });
        leaving.forEach(member -> {
            try {
                retire(member);
            } catch (RuntimeException e) {
                // and on: a failure here must not stop this or later refreshes
                logger.warn("RDMA connection '" + plan.name() + "': closing the connection of departed instance '"
                        + member.endpoint().instanceId() + "' failed", e);
            }
        });
        String failure = null;
        for (ServiceInstanceEndpoint endpoint : current.values()) {
            if (members.containsKey(endpoint.instanceId())) {
                continue;
            }
            if (members.size() >= plan.maxInstances()) {
                failure = current.size() + " instances, of which max-instances (" + plan.maxInstances()
                        + ") are connected";
                break;
            }
            try {
                join(endpoint);
            } catch (RuntimeException e) {
                failure = "no queue pair for instance '" + endpoint.instanceId() + "': " + e.getMessage();
                logger.warn("RDMA connection '" + plan.name() + "': " + failure, e);
            }
        }
        lastFailure = failure;
    }

    private void join(ServiceInstanceEndpoint endpoint) {
        String name = plan.name() + "@" + endpoint.instanceId();
        QueuePair qp = resources.createQueuePair(plan.queuePairPrototype());
        String pool = resources.queuePairAddress(plan.queuePairPrototype()).memoryPool();
        OutboundConnection connection = new OutboundConnection(
                plan.toInstance(name, name, endpoint.host(), endpoint.port()), plan.name(), qp, manager, route, hub, pool);
        try {
            hub.adopt(name, qp, pool, plan.queuePairPrototype());
            hub.watch(qp, connection::failed);
        } catch (RuntimeException e) {
            hub.unwatch(qp);
            hub.abandon(name, qp);
            throw e;
        }
        members.put(endpoint.instanceId(), new Member(endpoint, name, qp, connection));
        logger.info("RDMA connection '" + plan.name() + "': instance '" + endpoint.instanceId() + "' of service '"
                + plan.service() + "' joined (" + endpoint.host() + ":" + endpoint.port() + ", queue pair '" + name + "')");
        connection.connectInBackground();
    }

    private void retire(Member member) {
        logger.info("RDMA connection '" + plan.name() + "': instance '" + member.endpoint().instanceId()
                + "' left service '" + plan.service() + "'; its connection and queue pair '" + member.name()
                + "' are closed");
        member.connection().retire(() -> {
            hub.unwatch(member.queuePair());
            hub.abandon(member.name(), member.queuePair());
        });
    }

    /** At shutdown, after the hub's threads ended: every member's connection, then its queue pair. */
    synchronized void close() {
        members.values().forEach(this::retire);
        members.clear();
    }

    RdmaConnections.ServiceStatus status() {
        List<RdmaConnections.OutboundStatus> instances;
        synchronized (this) {
            instances = members.values().stream().map(member -> member.connection().status()).toList();
        }
        return new RdmaConnections.ServiceStatus(plan.name(), plan.property(), plan.service(), plan.listener(),
                known, instances, lastFailure);
    }
}

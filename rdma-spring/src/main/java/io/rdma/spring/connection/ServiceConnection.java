package io.rdma.spring.connection;

import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.resource.ConnectionPlan.ServicePlan;
import io.rdma.verbs.api.ConnectionManager;
import io.rdma.verbs.api.QueuePair;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * An outbound connection to a discovered service: on each {@link #refresh} it reads the service's
 * instances and follows them, connecting to every one ({@link EveryInstanceConnection}) or to
 * one chosen among them ({@link ChosenInstanceConnection}). Each instance's connection is an
 * {@link OutboundConnection} named {@code <connection>@<instance id>}.
 */
abstract sealed class ServiceConnection permits EveryInstanceConnection, ChosenInstanceConnection {

    private static final Log logger = LogFactory.getLog(ServiceConnection.class);

    final ServicePlan plan;
    final RdmaChannels channels;
    final ConnectionQueuePairs queuePairs;
    private final ConnectionThreads threads;
    private final ConnectionStateEvents events;
    private final RdmaServiceDiscovery discovery;
    private final ConnectionManager manager;
    private volatile int known;
    volatile @Nullable String lastFailure;

    ServiceConnection(ServicePlan plan, RdmaServiceDiscovery discovery, ConnectionManager manager,
                      RdmaChannels channels, ConnectionThreads threads, ConnectionQueuePairs queuePairs,
                      ConnectionStateEvents events) {
        this.plan = plan;
        this.channels = channels;
        this.discovery = discovery;
        this.manager = manager;
        this.threads = threads;
        this.queuePairs = queuePairs;
        this.events = events;
    }

    /**
     * Reads the service's instances and follows them; a discovery client that fails leaves the
     * connections as they are. The read is made outside any lock: a registry that is slow to
     * answer must not hold up {@link #status()}, which health checks call. Only the
     * {@link ServiceRefresher}'s one thread calls this.
     */
    final void refresh() {
        List<ServiceInstanceEndpoint> found;
        try {
            found = discovery.endpoints(plan.service(), plan.listener());
        } catch (RuntimeException e) {
            lastFailure = "the discovery client failed: " + e.getMessage();
            logger.warn("RDMA connection '" + plan.name() + "': the instances of service '" + plan.service()
                    + "' could not be read; the connections stay as they are", e);
            return;
        }
        Map<String, ServiceInstanceEndpoint> listed = new LinkedHashMap<>();
        found.forEach(endpoint -> listed.putIfAbsent(endpoint.instanceId(), endpoint));
        known = listed.size();
        follow(listed);
    }

    /**
     * Follows the instances {@code listed} now, by instance id in the discovery client's order;
     * sets {@link #lastFailure} to why not every instance it should connect is connected, or null.
     */
    abstract void follow(Map<String, ServiceInstanceEndpoint> listed);

    /** At shutdown, after the connection and refresh threads ended: closes what this connection opened. */
    abstract void close();

    /** The connections to instances there are now. */
    abstract List<RdmaConnections.OutboundStatus> instances();

    /**
     * The connection to {@code endpoint} on {@code qp}, whose channel is {@code channel}, renewing
     * its queue pair with {@code renewal} for each reconnection; not yet attempted.
     */
    final OutboundConnection connectionTo(ServiceInstanceEndpoint endpoint, String channel, QueuePair qp,
                                          UnaryOperator<QueuePair> renewal) {
        return new OutboundConnection(plan.toInstance(plan.instanceConnection(endpoint.instanceId()), channel,
                endpoint.host(), endpoint.port()), qp, renewal, manager, channels, threads, queuePairs, events);
    }

    final RdmaConnections.ServiceStatus status() {
        return new RdmaConnections.ServiceStatus(plan.name(), plan.property(), plan.service(), plan.listener(),
                known, instances(), lastFailure);
    }
}

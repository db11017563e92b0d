package io.rdma.spring.connection;

import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.resource.ConnectionPlan.ServicePlan;
import io.rdma.verbs.api.ConnectionManager;
import io.rdma.verbs.api.QueuePair;

import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The outbound connection to one instance of a discovered service at a time, on a declared queue
 * pair ({@code service} with {@code queue-pair}): the {@link RdmaInstanceChooser} picks an
 * instance among those listed and the queue pair is connected to it, with the connection's
 * retries and backoff when it fails, for as long as that instance stays listed. When it leaves
 * (or moves to another address) the connection is retired (closed, its observers told) and, once
 * no attempt uses the queue pair any more, an instance is chosen again among those then listed
 * and connected on a queue pair made anew from the declaration (or the same one reset, where
 * none can be made: {@link ConnectionQueuePairs#renewalOfDeclared}). While none is listed the
 * connection waits.
 *
 * <p>Only the {@link ServiceRefresher}'s thread chooses and connects, so one connection at most uses the
 * queue pair; a retirement that an attempt under way delays ends on that attempt's thread, and
 * asks the refresh thread to read the service again.
 */
final class ChosenInstanceConnection extends ServiceConnection {

    private static final Log logger = LogFactory.getLog(ChosenInstanceConnection.class);

    /** The chosen instance and the connection to it. */
    private record Chosen(ServiceInstanceEndpoint endpoint, OutboundConnection connection) {
    }

    private final RdmaInstanceChooser chooser;
    private final ServiceRefresher refresher;
    /** The declared queue pair's name, and the queue pair its channel is on now (the bean, or one made anew). */
    private final String queuePair;
    private volatile QueuePair qp;
    private volatile @Nullable Chosen chosen;
    /** A departed instance's connection is being retired: the queue pair is not free yet. */
    private volatile boolean retiring;

    ChosenInstanceConnection(ServicePlan plan, String queuePair, QueuePair qp, RdmaServiceDiscovery discovery,
                             RdmaInstanceChooser chooser, ServiceRefresher refresher, ConnectionManager manager,
                             RdmaChannels channels, ConnectionThreads threads, ConnectionQueuePairs queuePairs,
                             ConnectionStateEvents events) {
        super(plan, discovery, manager, channels, threads, queuePairs, events);
        this.chooser = chooser;
        this.refresher = refresher;
        this.queuePair = queuePair;
        this.qp = qp;
    }

    @Override
    void follow(Map<String, ServiceInstanceEndpoint> listed) {
        Chosen current = chosen;
        if (current != null) {
            if (!current.endpoint().equals(listed.get(current.endpoint().instanceId()))) {
                depart(current);
            }
            lastFailure = null;
            return;
        }
        if (retiring || listed.isEmpty()) {
            lastFailure = null;
            return;
        }
        ServiceInstanceEndpoint endpoint;
        try {
            endpoint = chooser.choose(plan.service(), List.copyOf(listed.values()));
        } catch (RuntimeException e) {
            lastFailure = "the instance chooser failed: " + e.getMessage();
            logger.warn("RDMA connection '" + plan.name() + "': no instance of service '" + plan.service()
                    + "' could be chosen; the next read of its instances tries again", e);
            return;
        }
        lastFailure = null;
        connect(endpoint);
    }

    private void connect(ServiceInstanceEndpoint endpoint) {
        OutboundConnection connection = connectionTo(endpoint, queuePair, qp, queuePairs.renewalOfDeclared(queuePair));
        queuePairs.watch(qp, connection::failed);
        chosen = new Chosen(endpoint, connection);
        logger.info("RDMA connection '" + plan.name() + "': instance '" + endpoint.instanceId() + "' of service '"
                + plan.service() + "' chosen (" + endpoint.host() + ":" + endpoint.port() + ", queue pair '"
                + queuePair + "')");
        connection.connectInBackground();
    }

    /**
     * The chosen instance left: its connection is retired, at once or when the attempt under way
     * ends, and then the service is read again to choose another.
     */
    private void depart(Chosen departed) {
        logger.info("RDMA connection '" + plan.name() + "': chosen instance '" + departed.endpoint().instanceId()
                + "' left service '" + plan.service() + "'; its connection is closed, and queue pair '" + queuePair
                + "' goes to an instance chosen among those listed");
        retiring = true;
        chosen = null;
        departed.connection().retire(() -> {
            qp = departed.connection().queuePair(); // the next instance's connection renews it
            retiring = false;
            refresher.refreshSoon(this);
        });
    }

    /** The connection goes, and with it a queue pair made anew; the declared bean stays for Spring to destroy. */
    @Override
    void close() {
        Chosen current = chosen;
        if (current != null) {
            current.connection().close();
        } else {
            queuePairs.closeIfRenewed(qp); // a departed instance's, none chosen since
        }
    }

    @Override
    List<RdmaConnections.OutboundStatus> instances() {
        Chosen current = chosen;
        return current == null ? List.of() : List.of(current.connection().status());
    }
}

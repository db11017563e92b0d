package io.rdma.spring.connection;

import io.rdma.spring.channel.RdmaChannels;
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

/**
 * The outbound connections to every instance of a discovered service ({@code service} with
 * {@code queue-pair-prototype}): each new instance (up to {@code max-instances}) gets a queue pair
 * of the prototype and an {@link OutboundConnection} that connects in the background, and the
 * connection of each instance that left (or moved to another address) is retired: its connection
 * closes and then its queue pair, in libibverbs' order. A failed connection is made again on a
 * fresh queue pair of the prototype. Each instance's queue pair is named
 * {@code <connection>@<instance id>}, the name the {@code RdmaTemplate} sends on.
 */
final class EveryInstanceConnection extends ServiceConnection {

    private static final Log logger = LogFactory.getLog(EveryInstanceConnection.class);

    /** An instance's connection, on a queue pair of its own (a fresh one for each reconnection). */
    private record Member(ServiceInstanceEndpoint endpoint, String name, OutboundConnection connection) {
    }

    private final RdmaResources resources;
    private final String prototype;
    private final Map<String, Member> members = new LinkedHashMap<>();

    EveryInstanceConnection(ServicePlan plan, String prototype, RdmaServiceDiscovery discovery,
                            ConnectionManager manager, RdmaResources resources, RdmaChannels channels,
                            ConnectionThreads threads, ConnectionQueuePairs queuePairs, ConnectionStateEvents events) {
        super(plan, discovery, manager, channels, threads, queuePairs, events);
        this.prototype = prototype;
        this.resources = resources;
    }

    @Override
    synchronized void follow(Map<String, ServiceInstanceEndpoint> listed) {
        List<Member> leaving = new ArrayList<>();
        members.values().removeIf(member -> {
            boolean left = !member.endpoint().equals(listed.get(member.endpoint().instanceId()));
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
        for (ServiceInstanceEndpoint endpoint : listed.values()) {
            if (members.containsKey(endpoint.instanceId())) {
                continue;
            }
            if (members.size() >= plan.maxInstances()) {
                failure = listed.size() + " instances, of which max-instances (" + plan.maxInstances()
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
        String name = plan.instanceConnection(endpoint.instanceId());
        QueuePair qp = resources.createQueuePair(prototype);
        OutboundConnection connection = connectionTo(endpoint, name, qp, queuePairs.renewalFrom(prototype, name));
        try {
            channels.open(name, plan.name(), qp, prototype);
            queuePairs.watch(qp, connection::failed);
        } catch (RuntimeException e) {
            queuePairs.retire(name, qp, "joining the instance failed: " + e.getMessage());
            throw e;
        }
        members.put(endpoint.instanceId(), new Member(endpoint, name, connection));
        logger.info("RDMA connection '" + plan.name() + "': instance '" + endpoint.instanceId() + "' of service '"
                + plan.service() + "' joined (" + endpoint.host() + ":" + endpoint.port() + ", queue pair '" + name + "')");
        connection.connectInBackground();
    }

    private void retire(Member member) {
        logger.info("RDMA connection '" + plan.name() + "': instance '" + member.endpoint().instanceId()
                + "' left service '" + plan.service() + "'; its connection and queue pair '" + member.name()
                + "' are closed");
        // the queue pair in use once the connection is retired: attempts under way may have renewed it
        member.connection().retire(() -> queuePairs.retire(member.name(), member.connection().queuePair(),
                "the instance left the service"));
    }

    /** Every member's connection, then its queue pair. */
    @Override
    synchronized void close() {
        members.values().forEach(this::retire);
        members.clear();
    }

    @Override
    synchronized List<RdmaConnections.OutboundStatus> instances() {
        return members.values().stream().map(member -> member.connection().status()).toList();
    }
}

package io.rdma.boot.autoconfigure.resource;

import io.rdma.boot.autoconfigure.RdmaProperties;
import io.rdma.boot.autoconfigure.resource.DevicePlan.QueuePairPlan;
import io.rdma.spring.resource.ConnectionPlan;
import io.rdma.spring.resource.ConnectionPlan.ListenerPlan;
import io.rdma.spring.resource.ConnectionPlan.OutboundPlan;
import io.rdma.spring.resource.ConnectionPlan.ServicePlan;
import io.rdma.verbs.api.QueuePairType;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Reads the {@code rdma.connections} properties into a {@link ConnectionPlan}, checked against the
 * declared queue pairs and prototypes before anything is created: every reference resolves to an
 * rc or uc queue pair (or prototype), ports, backlogs and retries are in range, a listener address
 * is an IP literal, and no queue pair is brought up by two connections.
 */
final class ConnectionPlanReader {

    static final String PROPERTY = RdmaProperties.PREFIX + ".connections";
    /** Instances a connection to every instance of a service connects at once when max-instances is unset. */
    private static final int DEFAULT_MAX_INSTANCES = 8;

    private ConnectionPlanReader() {
    }

    static ConnectionPlan read(RdmaProperties.Connections connections, List<DevicePlan> devices) {
        Map<String, QueuePairPlan> qps = new LinkedHashMap<>();
        Map<String, QueuePairPlan> prototypes = new LinkedHashMap<>();
        Map<String, String> deviceOf = new HashMap<>();
        for (DevicePlan device : devices) {
            device.queuePairs().forEach(qp -> qps.put(qp.name(), qp));
            device.queuePairPrototypes().forEach(qp -> prototypes.put(qp.name(), qp));
            device.queuePairs().forEach(qp -> deviceOf.put(qp.name(), device.name()));
            device.queuePairPrototypes().forEach(qp -> deviceOf.put(qp.name(), device.name()));
        }
        Map<String, String> usedBy = new HashMap<>();
        List<ListenerPlan> listeners = new ArrayList<>();
        connections.getListeners().forEach((name, listener) -> {
            ListenerPlan plan = listener(name, PROPERTY + ".listeners." + name, listener, qps, prototypes, deviceOf);
            if (plan.queuePair() != null) {
                claim(usedBy, plan.queuePair(), plan.property() + ".queue-pair");
            }
            listeners.add(plan);
        });
        List<OutboundPlan> outbound = new ArrayList<>();
        List<ServicePlan> services = new ArrayList<>();
        connections.getOutbound().forEach((name, connection) -> {
            String property = PROPERTY + ".outbound." + name;
            String service = connection.getService();
            if (service != null) {
                ServicePlan plan = service(name, property, connection, service, qps, prototypes, deviceOf);
                if (plan.queuePair() != null) {
                    claim(usedBy, plan.queuePair(), plan.property() + ".queue-pair");
                }
                services.add(plan);
            } else {
                OutboundPlan plan = outbound(name, property, connection, qps, deviceOf);
                claim(usedBy, plan.queuePair(), plan.property() + ".queue-pair");
                outbound.add(plan);
            }
        });
        return new ConnectionPlan(List.copyOf(listeners), List.copyOf(outbound), List.copyOf(services));
    }

    /**
     * A connection to the instances of a discovered service: to every one, on queue pairs of a
     * prototype, or to one at a time, on a declared queue pair.
     */
    private static ServicePlan service(String name, String property, RdmaProperties.OutboundConnection connection,
                                       String serviceId, Map<String, QueuePairPlan> qps,
                                       Map<String, QueuePairPlan> prototypes, Map<String, String> deviceOf) {
        if (connection.getHost() != null) {
            throw new InvalidRdmaConfigurationException(property + ".service", "a connection to a service finds its"
                    + " instances' addresses through the discovery client, so it names no host",
                    "Remove host, or remove service to connect one queue pair to one host.");
        }
        String service = serviceId.trim();
        if (service.isEmpty()) {
            throw new InvalidRdmaConfigurationException(property + ".service", "the service id is blank",
                    "Set the service id the discovery client knows the service by, e.g. kv-store.");
        }
        if (connection.getListener() == null || connection.getListener().isBlank()) {
            throw new InvalidRdmaConfigurationException(property + ".listener", "no listener is set, so no instance's"
                    + " metadata says where to connect", "Set the name of the RDMA listener the service's instances"
                    + " declare (rdma.connections.listeners.<name>); they advertise it as rdma.listener.<name>.port.");
        }
        positive(connection.getRefreshInterval(), property + ".refresh-interval");
        checkAttempts(property, connection);
        QueuePairPlan source;
        String qp = null;
        String prototype = null;
        int maxInstances = 1;
        if (connection.getQueuePair() != null) {
            if (connection.getQueuePairPrototype() != null || connection.getMaxInstances() != null) {
                String key = connection.getQueuePairPrototype() != null ? "queue-pair-prototype" : "max-instances";
                throw new InvalidRdmaConfigurationException(property + "." + key, "the connection names queue-pair,"
                        + " so it connects one instance of the service at a time, on that declared queue pair, and "
                        + key + " belongs to a connection to every instance, each on a queue pair of the prototype",
                        "Remove " + key + " to connect one instance at a time (chosen by Spring Cloud LoadBalancer"
                                + " where present), or replace queue-pair with queue-pair-prototype to connect every"
                                + " instance.");
            }
            source = connectable(connection.getQueuePair(), property + ".queue-pair", qps, "queue pair",
                    "queue-pairs of a protection domain");
            qp = source.name();
        } else {
            if (connection.getQueuePairPrototype() == null) {
                throw new InvalidRdmaConfigurationException(property + ".queue-pair-prototype", "a connection to a"
                        + " service runs on queue pairs of a prototype (every instance, each on its own) or on one"
                        + " declared queue pair (one instance at a time), and this one names neither",
                        "Set queue-pair-prototype to connect every instance, or queue-pair to connect one instance"
                                + " at a time (chosen by Spring Cloud LoadBalancer where present).");
            }
            source = connectable(connection.getQueuePairPrototype(), property + ".queue-pair-prototype",
                    prototypes, "queue pair prototype", "queue-pair-prototypes of a protection domain");
            prototype = source.name();
            maxInstances = connection.getMaxInstances() != null ? connection.getMaxInstances() : DEFAULT_MAX_INSTANCES;
            CheckedResourcePlan.positive(maxInstances, property + ".max-instances");
        }
        RdmaProperties.Backoff backoff = connection.getBackoff();
        return new ServicePlan(name, property, device(deviceOf, source), service, connection.getListener().trim(),
                qp, prototype, maxInstances, connection.getRefreshInterval(), connection.getTimeout(),
                connection.getRetries(), backoff.getInitial(), backoff.getMultiplier(), backoff.getMax(),
                source.reliability());
    }

    private static ListenerPlan listener(String name, String property, RdmaProperties.ConnectionListener listener,
                                         Map<String, QueuePairPlan> qps, Map<String, QueuePairPlan> prototypes,
                                         Map<String, String> deviceOf) {
        if ((listener.getQueuePair() == null) == (listener.getQueuePairPrototype() == null)) {
            throw new InvalidRdmaConfigurationException(property, "a listener runs its connections either on"
                    + " queue pairs created from a prototype or on one declared queue pair, and this one names "
                    + (listener.getQueuePair() == null ? "neither" : "both"), "Set queue-pair-prototype (a queue"
                    + " pair per peer) or queue-pair (one peer at a time).");
        }
        QueuePairPlan source;
        String qp = null;
        String prototype = null;
        if (listener.getQueuePair() != null) {
            source = connectable(listener.getQueuePair(), property + ".queue-pair", qps, "queue pair",
                    "queue-pairs of a protection domain");
            qp = source.name();
        } else {
            source = connectable(listener.getQueuePairPrototype(), property + ".queue-pair-prototype", prototypes,
                    "queue pair prototype", "queue-pair-prototypes of a protection domain");
            prototype = source.name();
        }
        InetAddress address = ipLiteral(listener.getAddress(), property + ".address");
        CheckedResourcePlan.inRange(listener.getPort(), 0, 0xFFFF, property + ".port",
                "a listening port (0: the connection manager chooses)");
        CheckedResourcePlan.positive(listener.getBacklog(), property + ".backlog");
        CheckedResourcePlan.positive(listener.getMaxConnections(), property + ".max-connections");
        positive(listener.getAcceptTimeout(), property + ".accept-timeout");
        return new ListenerPlan(name, property, device(deviceOf, source), address, listener.getPort(),
                listener.getBacklog(), qp, prototype, listener.getMaxConnections(), listener.getAcceptTimeout(),
                source.reliability());
    }

    private static OutboundPlan outbound(String name, String property, RdmaProperties.OutboundConnection connection,
                                         Map<String, QueuePairPlan> qps, Map<String, String> deviceOf) {
        if (connection.getListener() != null || connection.getQueuePairPrototype() != null
                || connection.getMaxInstances() != null) {
            String key = connection.getListener() != null ? "listener"
                    : connection.getQueuePairPrototype() != null ? "queue-pair-prototype" : "max-instances";
            throw new InvalidRdmaConfigurationException(property + "." + key, key + " belongs to a connection to a"
                    + " discovered service, and this one names no service", "Set service (and remove host), or"
                    + " remove " + key + ".");
        }
        QueuePairPlan qp = connectable(connection.getQueuePair(), property + ".queue-pair", qps, "queue pair",
                "queue-pairs of a protection domain");
        if (connection.getHost() == null || connection.getHost().isBlank()) {
            throw new InvalidRdmaConfigurationException(property + ".host", "no host is set",
                    "Set the address of the listener's RDMA port (its RoCE GID's IPv4, or IPoIB), or a name"
                            + " resolving to it.");
        }
        CheckedResourcePlan.inRange(connection.getPort(), 1, 0xFFFF, property + ".port", "a listener's port");
        checkAttempts(property, connection);
        RdmaProperties.Backoff backoff = connection.getBackoff();
        return new OutboundPlan(name, property, device(deviceOf, qp), qp.name(), connection.getHost().trim(),
                connection.getPort(), connection.getTimeout(), connection.getRetries(), backoff.getInitial(),
                backoff.getMultiplier(), backoff.getMax(), qp.reliability());
    }

    /** Checks the timeout, retries and backoff of {@code connection}'s attempts. */
    private static void checkAttempts(String property, RdmaProperties.OutboundConnection connection) {
        positive(connection.getTimeout(), property + ".timeout");
        CheckedResourcePlan.notNegative(connection.getRetries(), property + ".retries");
        RdmaProperties.Backoff backoff = connection.getBackoff();
        if (backoff.getInitial().isNegative()) {
            throw new InvalidRdmaConfigurationException(property + ".backoff.initial", "the pause "
                    + backoff.getInitial() + " is negative", "Set a pause of zero or more, e.g. 200ms.");
        }
        if (backoff.getMultiplier() < 1) {
            throw new InvalidRdmaConfigurationException(property + ".backoff.multiplier", "the multiplier "
                    + backoff.getMultiplier() + " is below 1, so pauses would shrink", "Set 1 (constant pauses) or more.");
        }
        if (backoff.getMax().compareTo(backoff.getInitial()) < 0) {
            throw new InvalidRdmaConfigurationException(property + ".backoff.max", "the longest pause "
                    + backoff.getMax() + " is shorter than the first, " + backoff.getInitial(),
                    "Set backoff.max to at least backoff.initial.");
        }
    }

    /** A reference to an rc or uc queue pair (or prototype): rdma_cm connects nothing else. */
    private static QueuePairPlan connectable(@Nullable String name, String property,
                                             Map<String, QueuePairPlan> declared, String what, String where) {
        String resolved = CheckedResourcePlan.reference(name, property, declared.keySet(), what, where);
        QueuePairPlan plan = Objects.requireNonNull(declared.get(resolved)); // reference found it there
        QueuePairType type = plan.type();
        if (!type.isConnected()) {
            throw new InvalidRdmaConfigurationException(property, "'" + resolved + "' is " + type + ", and the"
                    + " connection manager connects only rc and uc queue pairs", "Name an rc or uc " + what
                    + "; ud queue pairs address each datagram instead.");
        }
        return plan;
    }

    /** The device {@code qp} (a queue pair or prototype) is declared on: read() maps every one. */
    private static String device(Map<String, String> deviceOf, QueuePairPlan qp) {
        return Objects.requireNonNull(deviceOf.get(qp.name()));
    }

    private static void positive(Duration timeout, String property) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new InvalidRdmaConfigurationException(property, "the timeout " + timeout + " is not positive",
                    "Set a timeout such as 5s.");
        }
    }

    private static InetAddress ipLiteral(@Nullable String address, String property) {
        try {
            return InetAddress.ofLiteral(address == null ? "" : address.trim());
        } catch (IllegalArgumentException e) {
            throw new InvalidRdmaConfigurationException(property, "'" + address + "' is not an IP address",
                    "Set 0.0.0.0 (every port of the device) or the IPv4 address of an RDMA port.");
        }
    }

    private static void claim(Map<String, String> usedBy, String qp, String property) {
        String other = usedBy.putIfAbsent(qp, property);
        if (other != null) {
            throw new InvalidRdmaConfigurationException(property, "queue pair '" + qp + "' is already brought up by "
                    + other + ", and a queue pair carries one connection", "Declare a queue pair per connection.");
        }
    }
}

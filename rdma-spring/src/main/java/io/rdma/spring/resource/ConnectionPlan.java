package io.rdma.spring.resource;

import io.rdma.verbs.api.ReliabilitySettings;

import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The declared listeners, outbound connections and connections to discovered services, checked against the declared queue pairs and
 * prototypes before anything was created: every reference names an rc or uc queue pair (or
 * prototype) of the device it sits on, and no queue pair is brought up by two connections.
 * {@code property} of each names its declaration, for messages.
 */
public record ConnectionPlan(List<ListenerPlan> listeners, List<OutboundPlan> outbound, List<ServicePlan> services) {

    /**
     * A listener on {@code device}. Exactly one of {@code queuePair} (one peer at a time on that
     * declared QP) and {@code queuePairPrototype} (a QP per peer) is set; {@code reliability} is that
     * QP's or prototype's, set on each accepted peer's QP in place of the connection manager's.
     */
    public record ListenerPlan(String name, String property, String device, InetAddress address, int port,
                               int backlog, @Nullable String queuePair, @Nullable String queuePairPrototype,
                               int maxConnections, Duration acceptTimeout, ReliabilitySettings reliability) {

        /** The QP or prototype every accepted connection runs on. */
        public String queuePairSource() {
            return queuePair != null ? queuePair : Objects.requireNonNull(queuePairPrototype);
        }

        public int peersAtOnce() {
            return queuePair != null ? 1 : maxConnections;
        }

        /** The channel of the {@code n}th peer accepted on a queue pair made from the prototype: {@code <listener>#<n>}. */
        public String peerChannel(int n) {
            return name + "#" + n;
        }

        /** Whether {@code channel} is named like a peer's channel of this listener's prototype. */
        boolean namesPeerChannel(String channel) {
            return queuePairPrototype != null && channel.startsWith(name + "#") && channel.length() > name.length() + 1
                    && channel.substring(name.length() + 1).chars().allMatch(Character::isDigit);
        }
    }

    /**
     * An outbound connection of {@code queuePair} (on {@code device}) with its retry policy, and the
     * queue pair's {@code reliability}, set in place of the connection manager's.
     */
    public record OutboundPlan(String name, String property, String device, String queuePair, String host, int port,
                               Duration timeout, int retries, Duration initialBackoff, double backoffMultiplier,
                               Duration maxBackoff, ReliabilitySettings reliability) {

        /** The pause after failed attempt {@code attempt} (1 for the first): initial × multiplier^(attempt-1), capped. */
        public Duration backoff(int attempt) {
            double nanos = initialBackoff.toNanos() * Math.pow(backoffMultiplier, Math.max(0, attempt - 1));
            return nanos >= maxBackoff.toNanos() ? maxBackoff : Duration.ofNanos((long) nanos);
        }
    }

    /**
     * Outbound connections to the instances of {@code service} (as a discovery client knows it)
     * whose metadata advertises RDMA listener {@code listener}, read again every
     * {@code refreshInterval}. Exactly one of {@code queuePair} and {@code queuePairPrototype} is
     * set: with {@code queuePairPrototype} every instance is connected, each on a queue pair made
     * from it for that instance, at most {@code maxInstances} at once; with {@code queuePair} one
     * instance at a time, chosen among those listed, on that declared queue pair
     * ({@code maxInstances} is 1). Each instance's connection is attempted as an
     * {@link OutboundPlan} with this plan's timeout, retries and backoff and the reliability of its
     * queue pair or prototype ({@link #toInstance}).
     */
    public record ServicePlan(String name, String property, String device, String service, String listener,
                              @Nullable String queuePair, @Nullable String queuePairPrototype, int maxInstances,
                              Duration refreshInterval, Duration timeout, int retries, Duration initialBackoff,
                              double backoffMultiplier, Duration maxBackoff, ReliabilitySettings reliability) {

        /** The name of the connection to instance {@code instanceId}, and of its channel with a prototype: {@code <connection>@<instance>}. */
        public String instanceConnection(String instanceId) {
            return name + "@" + instanceId;
        }

        /** Whether {@code channel} is named like the channel of an instance on a queue pair made from the prototype. */
        boolean namesInstanceChannel(String channel) {
            return queuePairPrototype != null && channel.startsWith(name + "@") && channel.length() > name.length() + 1;
        }

        /** The connection to one instance, on {@code queuePair}, named {@code connection}. */
        public OutboundPlan toInstance(String connection, String queuePair, String host, int port) {
            return new OutboundPlan(connection, property, device, queuePair, host, port, timeout, retries,
                    initialBackoff, backoffMultiplier, maxBackoff, reliability);
        }
    }

    /**
     * The listener or service connection whose peers or instances have channels named like
     * {@code channel} ({@code <listener>#<n>}, {@code <connection>@<instance>}), or null when
     * {@code channel} is not such a name: a channel of that name comes and goes with its peer or
     * instance, so a call naming it when it is not there meets a peer or an instance that left (or
     * has not come yet), not a mistake in the code.
     */
    public @Nullable String connectionNamingChannel(String channel) {
        for (ListenerPlan listener : listeners) {
            if (listener.namesPeerChannel(channel)) {
                return listener.name();
            }
        }
        for (ServicePlan service : services) {
            if (service.namesInstanceChannel(channel)) {
                return service.name();
            }
        }
        return null;
    }

    /**
     * How many peers may be connected at once through each prototype, summed over the listeners
     * and the service connections using it.
     */
    public Map<String, Integer> peersPerPrototype() {
        Map<String, Integer> peers = new HashMap<>();
        listeners.stream().filter(listener -> listener.queuePairPrototype() != null)
                .forEach(listener -> peers.merge(listener.queuePairPrototype(), listener.maxConnections(), Integer::sum));
        services.stream().filter(service -> service.queuePairPrototype() != null)
                .forEach(service -> peers.merge(service.queuePairPrototype(), service.maxInstances(), Integer::sum));
        return peers;
    }
}

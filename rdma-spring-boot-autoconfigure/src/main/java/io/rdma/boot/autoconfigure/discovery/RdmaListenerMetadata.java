package io.rdma.boot.autoconfigure.discovery;

import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.resource.ConnectionPlan.ListenerPlan;

import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * How an instance advertises its RDMA listeners in its discovery metadata, so that a client
 * configures none of it: for listener {@code kv}, {@code rdma.listener.kv.port} (the port it
 * listens on), {@code rdma.listener.kv.device} and, when it listens on one address rather than
 * every one, {@code rdma.listener.kv.address}; without an address a client connects to the
 * instance's host. On Kubernetes the same keys are annotations (docs/kubernetes.md).
 */
public final class RdmaListenerMetadata {

    private static final String PREFIX = "rdma.listener.";

    private RdmaListenerMetadata() {
    }

    /** The metadata key of {@code listener}'s {@code field} ({@code port}, {@code address}, {@code device}). */
    public static String key(String listener, String field) {
        return PREFIX + listener + "." + field;
    }

    /** The metadata that advertises every listener of {@code connections}, as bound (a port of 0 as chosen). */
    static Map<String, String> of(RdmaConnections connections, Iterable<ListenerPlan> listeners) {
        Map<String, String> metadata = new LinkedHashMap<>();
        for (ListenerPlan listener : listeners) {
            InetSocketAddress bound = connections.boundAddress(listener.name()).orElse(null);
            int port = bound != null ? bound.getPort() : listener.port();
            if (port == 0) {
                continue; // not listening yet, and the port is the connection manager's to choose
            }
            metadata.put(key(listener.name(), "port"), Integer.toString(port));
            metadata.put(key(listener.name(), "device"), listener.device());
            String address = specificAddress(bound != null ? bound : new InetSocketAddress(listener.address(), port));
            if (address != null) {
                metadata.put(key(listener.name(), "address"), address);
            }
        }
        return metadata;
    }

    private static @Nullable String specificAddress(InetSocketAddress address) {
        return address.getAddress() == null || address.getAddress().isAnyLocalAddress() ? null
                : address.getAddress().getHostAddress();
    }
}

package io.rdma.boot.autoconfigure.discovery;

import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.resource.ConnectionPlan.ListenerPlan;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.GidEntry;
import io.rdma.verbs.api.GidType;

import java.net.InetSocketAddress;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.cloud.client.serviceregistry.Registration;

/**
 * How an instance advertises its RDMA listeners in its discovery metadata, so that a client
 * configures none of it: for listener {@code kv}, {@code rdma.listener.kv.port} (the port it
 * listens on), {@code rdma.listener.kv.device} (its device's name as ibv_devices lists it, whatever
 * key the configuration gives the device), {@code rdma.listener.kv.gid} (the port's GID a
 * client reaches it by) and {@code rdma.listener.kv.address}: the address it is bound to, or, bound
 * to every address, the IPv4 address of that GID, which is where rdma_cm finds the device (the
 * registry may know the instance by another network's address). Without an address (InfiniBand
 * GIDs hold none) a client connects to the instance's host, as the registry knows it. On
 * Kubernetes the same keys are annotations (docs/kubernetes.md).
 */
public final class RdmaListenerMetadata {

    private static final Log logger = LogFactory.getLog(RdmaListenerMetadata.class);
    private static final String PREFIX = "rdma.listener.";

    private RdmaListenerMetadata() {
    }

    /** The metadata key of {@code listener}'s {@code field} ({@code port}, {@code address}, {@code device}, {@code gid}). */
    public static String key(String listener, String field) {
        return PREFIX + listener + "." + field;
    }

    /** The metadata that advertises every listener of {@code connections}, as bound (a port of 0 as chosen). */
    static Map<String, String> of(RdmaConnections connections, RdmaResources resources) {
        Map<String, String> metadata = new LinkedHashMap<>();
        for (ListenerPlan listener : resources.connections().listeners()) {
            InetSocketAddress bound = connections.boundAddress(listener.name()).orElse(null);
            int port = bound != null ? bound.getPort() : listener.port();
            if (port == 0) {
                continue; // not listening yet, and the port is the connection manager's to choose
            }
            metadata.put(key(listener.name(), "port"), Integer.toString(port));
            Optional<DeviceContext> device = resources.resources(DeviceContext.class).stream()
                    .filter(named -> named.name().equals(listener.device())).map(RdmaResources.Named::resource)
                    .findFirst();
            device.ifPresent(context -> metadata.put(key(listener.name(), "device"), context.deviceName()));
            Optional<GidEntry> gid = device.flatMap(context -> reachableGid(context,
                    resources.configuredPorts(listener.device())));
            gid.ifPresent(entry -> metadata.put(key(listener.name(), "gid"), entry.gid().toString()));
            String address = specificAddress(bound != null ? bound : new InetSocketAddress(listener.address(), port));
            if (address == null) {
                address = gid.flatMap(entry -> entry.gid().ipv4Address()).orElse(null);
            }
            if (address != null) {
                metadata.put(key(listener.name(), "address"), address);
            }
        }
        return metadata;
    }

    /**
     * Puts {@code metadata} into the metadata {@code registration} will be registered with; a
     * registry whose registration takes none at this point gets a warning that says what to do.
     */
    static void advertise(Map<String, String> metadata, Registration registration, RegistrationMetadata writable) {
        try {
            writable.of(registration).putAll(metadata);
        } catch (UnsupportedOperationException e) {
            logger.warn("The RDMA listeners are not advertised: " + registration.getClass().getName() + " takes no "
                    + "metadata before it registers. Give the registry these metadata entries in its own properties, "
                    + "or a RegistrationMetadata bean that returns its writable metadata: " + metadata);
        }
    }

    /**
     * The GID of the device's port that peers address: the IPv4 one rdma_cm resolves (RoCE v2
     * before v1, as the connection manager prefers it), else the first (InfiniBand's port GID).
     */
    private static Optional<GidEntry> reachableGid(DeviceContext context, List<Integer> ports) {
        if (ports.isEmpty()) {
            return Optional.empty();
        }
        List<GidEntry> table = context.queryGidTable(ports.getFirst());
        return table.stream().filter(GidEntry::isIpv4)
                .min(Comparator.comparing((GidEntry entry) -> entry.type() != GidType.ROCE_V2))
                .or(() -> table.stream().findFirst());
    }

    private static @Nullable String specificAddress(InetSocketAddress address) {
        return address.getAddress() == null || address.getAddress().isAnyLocalAddress() ? null
                : address.getAddress().getHostAddress();
    }
}

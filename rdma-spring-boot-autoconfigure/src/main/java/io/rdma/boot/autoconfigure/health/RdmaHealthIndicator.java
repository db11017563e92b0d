package io.rdma.boot.autoconfigure.health;

import io.rdma.spring.connection.ConnectionReliability;
import io.rdma.spring.connection.ConnectionState;
import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.PortState;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * UP while every port the configuration uses is ACTIVE and no declared outbound connection is
 * DOWN; DOWN, with each port's and connection's state, as soon as one is not (cable pulled,
 * subnet manager gone, {@code FabricControl.setPortState}, a peer that stays unreachable). A
 * connection that is CONNECTING (a reconnection under way) does not take health down. Each
 * connected rc queue pair's reliability settings ({@code reliability}, by connection or peer name)
 * say how soon a peer that is gone will take its connection down. The details name the provider
 * and why it serves ({@code selectionReason}), so a {@code provider: auto} that fell back to the
 * simulated fabric shows here too. Each device is listed under its key in {@code rdma.devices}, with
 * the name the provider lists it by ({@code deviceName}) beside its ports' states.
 *
 * <p>A port's state is {@code ibv_query_port} at each check, never cached, the read the
 * {@code rdma_state_id} meter makes on each scrape: health and metrics agree on a port that went down.
 */
public class RdmaHealthIndicator extends AbstractHealthIndicator {

    private final RdmaResources resources;
    private final RdmaConnections connections;

    public RdmaHealthIndicator(RdmaResources resources, RdmaConnections connections) {
        super("RDMA health check failed");
        this.resources = resources;
        this.connections = connections;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        boolean up = true;
        Map<String, Object> devices = new LinkedHashMap<>();
        for (RdmaResources.Named<DeviceContext> device : resources.resources(DeviceContext.class)) {
            Map<String, String> detail = new LinkedHashMap<>();
            detail.put("deviceName", device.resource().deviceName());
            for (int port : resources.configuredPorts(device.name())) {
                PortState state = device.resource().queryPort(port).state();
                detail.put("port " + port, state.name());
                up &= state == PortState.ACTIVE;
            }
            devices.put(device.name(), detail);
        }
        Map<String, String> outbound = new LinkedHashMap<>();
        Map<String, ConnectionReliability> reliability = new LinkedHashMap<>();
        for (RdmaConnections.OutboundStatus connection : connections.outbound()) {
            outbound.put(connection.name(), connection.state().name());
            up &= connection.state() != ConnectionState.DOWN;
            putIfConnected(reliability, connection.name(), connection.reliability());
        }
        Map<String, Object> listeners = new LinkedHashMap<>();
        for (RdmaConnections.ListenerStatus listener : connections.listeners()) {
            listeners.put(listener.name(), Map.of("address", String.valueOf(listener.boundAddress()),
                    "peers", listener.peers().size()));
            listener.peers().forEach(peer -> putIfConnected(reliability, peer.name(), peer.reliability()));
        }
        Map<String, Object> services = new LinkedHashMap<>();
        for (RdmaConnections.ServiceStatus service : connections.services()) {
            service.instances().forEach(instance ->
                    putIfConnected(reliability, instance.name(), instance.reliability()));
            long connected = service.connected();
            Map<String, Object> detail = new LinkedHashMap<>();
            detail.put("service", service.service());
            detail.put("known", service.known());
            detail.put("connected", connected);
            detail.put("failing", service.instances().stream()
                    .filter(instance -> instance.state() == ConnectionState.DOWN).count());
            if (service.lastFailure() != null) {
                detail.put("lastFailure", service.lastFailure());
            }
            services.put(service.name(), detail);
            // instances come and go: the service is down only when some are known and none is connected
            up &= service.known() == 0 || connected > 0;
        }
        (up ? builder.up() : builder.down()).withDetail("provider", resources.verbs().providerName())
                .withDetail("selectionReason", resources.verbs().selectionReason())
                .withDetail("devices", devices).withDetail("connections", outbound).withDetail("listeners", listeners)
                .withDetail("services", services).withDetail("reliability", reliability);
    }

    private static void putIfConnected(Map<String, ConnectionReliability> reliability, String connection,
                                       @Nullable ConnectionReliability effective) {
        if (effective != null) {
            reliability.put(connection, effective);
        }
    }
}

package io.rdma.boot.autoconfigure.health;

import io.rdma.boot.autoconfigure.fabric.RdmaFabric;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.PortState;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * UP while every port the configuration uses is ACTIVE; DOWN, with each port's state, as soon
 * as one is not (cable pulled, subnet manager gone, {@code FabricControl.setPortState}).
 */
public class RdmaHealthIndicator extends AbstractHealthIndicator {

    private final RdmaFabric fabric;

    public RdmaHealthIndicator(RdmaFabric fabric) {
        super("RDMA health check failed");
        this.fabric = fabric;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        boolean up = true;
        Map<String, Object> devices = new LinkedHashMap<>();
        for (RdmaFabric.Named<DeviceContext> device : fabric.resources(DeviceContext.class)) {
            Map<String, String> ports = new LinkedHashMap<>();
            for (int port : fabric.configuredPorts(device.name())) {
                PortState state = device.resource().queryPort(port).state();
                ports.put("port " + port, state.name());
                up &= state == PortState.ACTIVE;
            }
            devices.put(device.name(), ports);
        }
        (up ? builder.up() : builder.down()).withDetail("provider", fabric.verbs().providerName())
                .withDetail("devices", devices);
    }
}

package io.rdma.boot.autoconfigure.endpoint;

import io.rdma.boot.autoconfigure.fabric.RdmaFabric;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.PortAttributes;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/rdma}: the provider and why it was chosen, each device with its ports
 * (state, LID, GIDs, MTU, link layer) and every declared resource with the property that
 * declares it.
 */
@Endpoint(id = "rdma")
public class RdmaEndpoint {

    private final RdmaFabric fabric;

    public RdmaEndpoint(RdmaFabric fabric) {
        this.fabric = fabric;
    }

    @ReadOperation
    public FabricDescriptor fabric() {
        List<DeviceDescriptor> devices = new ArrayList<>();
        for (RdmaFabric.Named<DeviceContext> device : fabric.resources(DeviceContext.class)) {
            devices.add(device(device.name(), device.resource()));
        }
        return new FabricDescriptor(fabric.verbs().providerName(), fabric.verbs().selectionReason(), devices);
    }

    private DeviceDescriptor device(String name, DeviceContext context) {
        int portCount = context.queryDevice().physicalPortCount();
        List<PortDescriptor> ports = new ArrayList<>();
        for (int port = 1; port <= portCount; port++) {
            PortAttributes attributes = context.queryPort(port);
            List<String> gids = new ArrayList<>();
            for (int index = 0; index < attributes.gidTableLength(); index++) {
                Gid gid = context.queryGid(port, index);
                if (!gid.isZero()) {
                    gids.add(index + ": " + gid);
                }
            }
            ports.add(new PortDescriptor(port, attributes.state().name(), attributes.lid(), gids,
                    attributes.activeMtu().bytes(), attributes.linkLayer().name(),
                    fabric.configuredPorts(name).contains(port)));
        }
        List<ResourceDescriptor> resources = fabric.resources().stream()
                .filter(managed -> managed.declaration().device().equals(name))
                .map(managed -> new ResourceDescriptor(managed.name(), managed.declaration().kind().name(),
                        managed.declaration().property(), managed.resource().toString(),
                        managed.resource().isClosed()))
                .toList();
        return new DeviceDescriptor(name, context.device().guid(), ports, resources);
    }

    public record FabricDescriptor(String provider, String selectionReason, List<DeviceDescriptor> devices) {
    }

    public record DeviceDescriptor(String name, long guid, List<PortDescriptor> ports,
                                   List<ResourceDescriptor> resources) {
    }

    /** {@code configured} is true for the ports the configuration uses, which health watches. */
    public record PortDescriptor(int port, String state, int lid, List<String> gids, int mtu, String linkLayer,
                                 boolean configured) {
    }

    public record ResourceDescriptor(String name, String kind, String property, String description, boolean closed) {
    }
}

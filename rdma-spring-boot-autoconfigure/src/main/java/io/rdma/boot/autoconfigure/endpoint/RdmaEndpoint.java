package io.rdma.boot.autoconfigure.endpoint;

import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.DeviceAttributes;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.PortAttributes;
import io.rdma.verbs.api.Unsigned64;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/rdma}: the provider and why it was chosen, each device as {@code ibv_devinfo -v}
 * shows it with its ports (state, LIDs, GIDs, MTUs, link layer), every declared resource with the property that
 * declares it, and the declared connections: each listener's bound address (the chosen port
 * for port 0) with the peers it accepted, and each outbound connection's state.
 */
@Endpoint(id = "rdma")
public class RdmaEndpoint {

    private final RdmaResources resources;
    private final RdmaConnections connections;

    public RdmaEndpoint(RdmaResources resources, RdmaConnections connections) {
        this.resources = resources;
        this.connections = connections;
    }

    @ReadOperation
    public RdmaDescriptor rdma() {
        List<DeviceDescriptor> devices = new ArrayList<>();
        for (RdmaResources.Named<DeviceContext> device : resources.resources(DeviceContext.class)) {
            devices.add(device(device.name(), device.resource()));
        }
        return new RdmaDescriptor(resources.verbs().providerName(), resources.verbs().selectionReason(), devices,
                new ConnectionsDescriptor(connections.listeners(), connections.outbound()));
    }

    private DeviceDescriptor device(String name, DeviceContext context) {
        DeviceAttributes attributes = context.queryDevice();
        List<PortDescriptor> ports = new ArrayList<>();
        for (int port = 1; port <= attributes.physicalPortCount(); port++) {
            ports.add(port(name, context, port));
        }
        List<ResourceDescriptor> deviceResources = resources.resources().stream()
                .filter(managed -> managed.declaration().device().equals(name))
                .map(managed -> new ResourceDescriptor(managed.name(), managed.declaration().kind().name(),
                        managed.declaration().property(), managed.resource().toString(),
                        managed.resource().isClosed()))
                .toList();
        return new DeviceDescriptor(name, attributes.nodeGuid().toString(), attributes.systemImageGuid().toString(),
                attributes.firmwareVersion(), "0x%04x".formatted(attributes.vendorId()),
                Integer.toUnsignedLong(attributes.vendorPartId()), Integer.toUnsignedLong(attributes.hardwareVersion()),
                attributes.physicalPortCount(),
                Unsigned64.toBigInteger(attributes.maxMrSize()), Unsigned64.toBigInteger(attributes.pageSizeCap()),
                ports, deviceResources);
    }

    private PortDescriptor port(String device, DeviceContext context, int port) {
        PortAttributes attributes = context.queryPort(port);
        List<GidDescriptor> gids = context.queryGidTable(port).stream()
                .map(entry -> new GidDescriptor(entry.index(), entry.gid().toString(), entry.type().label(),
                        entry.netdev()))
                .toList();
        return new PortDescriptor(port, attributes.state().name(), attributes.state().ordinal(),
                attributes.maxMtu().bytes(), attributes.activeMtu().bytes(), attributes.lid(), attributes.smLid(),
                attributes.linkLayer().name(), gids, resources.configuredPorts(device).contains(port));
    }

    public record RdmaDescriptor(String provider, String selectionReason, List<DeviceDescriptor> devices,
                                   ConnectionsDescriptor connections) {
    }

    public record ConnectionsDescriptor(List<RdmaConnections.ListenerStatus> listeners,
                                        List<RdmaConnections.OutboundStatus> outbound) {
    }

    /**
     * A device as {@code ibv_devinfo -v} shows it: GUIDs in its hex form, the vendor id in hex,
     * the u32 ids unsigned and the u64 limits as exact JSON numbers (rxe's {@code max_mr_size} is
     * 18446744073709551615, never -1).
     */
    public record DeviceDescriptor(String name, String nodeGuid, String systemImageGuid, String firmwareVersion,
                                   String vendorId, long vendorPartId, long hardwareVersion, int physicalPortCount,
                                   BigInteger maxMrSize, BigInteger pageSizeCap, List<PortDescriptor> ports,
                                   List<ResourceDescriptor> resources) {
    }

    /**
     * A port: {@code state} with its {@code ibv_port_state} code ({@code stateId}, 4 = ACTIVE), MTUs
     * in bytes, the non-empty GID table entries. {@code configured} is true for the ports the
     * configuration uses, which health watches.
     */
    public record PortDescriptor(int port, String state, int stateId, int maxMtu, int activeMtu, int lid, int smLid,
                                 String linkLayer, List<GidDescriptor> gids, boolean configured) {
    }

    /**
     * A used GID table entry as {@code ibv_devinfo -v} prints it ({@code ::ffff:10.77.0.1, RoCE v2});
     * {@code netdev} is the network device it belongs to on RoCE, null on InfiniBand.
     */
    public record GidDescriptor(int index, String gid, String type, @Nullable String netdev) {
    }

    public record ResourceDescriptor(String name, String kind, String property, String description, boolean closed) {
    }
}

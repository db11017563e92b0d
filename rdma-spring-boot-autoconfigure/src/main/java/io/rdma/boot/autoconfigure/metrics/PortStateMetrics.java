package io.rdma.boot.autoconfigure.metrics;

import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.DeviceAttributes;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.PortAttributes;

import java.util.Locale;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

/**
 * Each device's identity and the state of each configured port, as node_exporter's infiniband
 * collector shows them: {@code rdma_info{device,board_id,firmware_version,hca_type}} and, per port,
 * {@code rdma_state_id} (the {@code ibv_port_state} code: 4 is ACTIVE), {@code rdma_physical_state_id}
 * (5 is LinkUp), {@code rdma_rate_bytes_per_second}, and {@code rdma_port_info{link_layer,active_mtu}}.
 *
 * <p>The state is {@code ibv_query_port}, read on every scrape (one query per port, shared by its
 * gauges), as the health indicator reads it: a port that goes down shows in the very next scrape and
 * in health alike. The info gauges' labels are what the device reported when bound: the attributes
 * a running device changes (the active MTU) are read again only when the application restarts.
 */
public class PortStateMetrics implements RdmaMeterBinder {

    private final RdmaResources resources;

    public PortStateMetrics(RdmaResources resources) {
        this.resources = resources;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (RdmaResources.Named<DeviceContext> device : resources.resources(DeviceContext.class)) {
            DeviceContext context = device.resource();
            DeviceAttributes attributes = context.queryDevice();
            Gauge.builder("rdma.info", () -> 1)
                    .description("The device's board, firmware and HCA type; always 1")
                    .tags("device", context.deviceName(), "board_id", attributes.boardId(),
                            "firmware_version", attributes.firmwareVersion(), "hca_type", attributes.hcaType())
                    .register(registry);
            for (int port : resources.configuredPorts(device.name())) {
                bindPort(registry, context, port);
            }
        }
    }

    private void bindPort(MeterRegistry registry, DeviceContext context, int port) {
        Tags tags = Tags.of("device", context.deviceName(), "port", Integer.toString(port));
        ScrapeSnapshot<PortAttributes> snapshot = ScrapeSnapshot.of(context, () -> context.queryPort(port));
        gauge(registry, context, "rdma.state.id", "Logical state of the port, the ibv_port_state code"
                + " (0: nop, 1: down, 2: init, 3: armed, 4: active, 5: active defer)", tags, snapshot,
                attributes -> attributes.state().ordinal());
        gauge(registry, context, "rdma.physical.state.id", "Physical state of the port's link (0: no state, 1: sleep,"
                + " 2: polling, 3: disabled, 4: port configuration training, 5: link up, 6: link error recovery,"
                + " 7: phy test)", tags, snapshot, attributes -> attributes.physicalState().code());
        gauge(registry, context, "rdma.rate.bytes.per.second", "Signalling rate of the port's link", tags, snapshot,
                PortAttributes::rateBytesPerSecond);
        PortAttributes bound = context.queryPort(port);
        Gauge.builder("rdma.port.info", () -> 1)
                .description("The port's link layer and active MTU in bytes, as bound; always 1").tags(tags)
                .tag("link_layer", bound.linkLayer().name().toLowerCase(Locale.ROOT))
                .tag("active_mtu", Integer.toString(bound.activeMtu().bytes()))
                .register(registry);
    }

    /** A gauge of {@code context}'s port; its function holds {@code snapshot} (see {@link ScrapeSnapshot}). */
    private static void gauge(MeterRegistry registry, DeviceContext context, String name, String description, Tags tags,
                              ScrapeSnapshot<PortAttributes> snapshot, ToDoubleFunction<PortAttributes> value) {
        int reader = snapshot.reader();
        Gauge.builder(name, context, c -> {
            PortAttributes attributes = snapshot.valueFor(reader);
            return attributes == null ? Double.NaN : value.applyAsDouble(attributes);
        }).description(description).tags(tags).register(registry);
    }

}

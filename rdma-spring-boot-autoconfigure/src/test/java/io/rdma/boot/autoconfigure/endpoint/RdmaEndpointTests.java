package io.rdma.boot.autoconfigure.endpoint;

import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint.DeviceDescriptor;
import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint.RdmaDescriptor;
import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint.PortDescriptor;
import io.rdma.verbs.api.DeviceAttributes;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.PortAttributes;
import io.rdma.verbs.api.Unsigned64;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;

import static org.assertj.core.api.Assertions.assertThat;

class RdmaEndpointTests {

    @Test
    void listsProviderDevicesPortsAndResources() {
        RdmaContextRunners.runner("full").withConfiguration(AutoConfigurations.of(RdmaEndpointAutoConfiguration.class))
                .withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=rdma").run(context -> {
                    RdmaDescriptor rdma = context.getBean(RdmaEndpoint.class).rdma();
                    assertThat(rdma.provider()).isEqualToIgnoringCase(RdmaContextRunners.PROVIDER.name());
                    assertThat(rdma.selectionReason()).isNotBlank();
                    DeviceDescriptor device = rdma.devices().getFirst();
                    assertThat(device.name()).isEqualTo(RdmaContextRunners.DEVICE);
                    // Real devices (rxe, mlx5) and the simulated one report max_mr_size = 2^64-1; it
                    // must show unsigned, and GUIDs in ibv_devinfo's hex form, never as signed numbers.
                    DeviceAttributes attributes = context.getBean(RdmaContextRunners.DEVICE, DeviceContext.class)
                            .queryDevice();
                    assertThat(device.nodeGuid()).matches("[0-9a-f]{4}(:[0-9a-f]{4}){3}")
                            .isEqualTo(attributes.nodeGuid().toString());
                    assertThat(device.maxMrSize()).isEqualTo(Unsigned64.toBigInteger(attributes.maxMrSize()))
                            .isPositive();
                    PortAttributes queried = context.getBean(RdmaContextRunners.DEVICE, DeviceContext.class).queryPort(1);
                    PortDescriptor port = device.ports().getFirst();
                    assertThat(port.state()).isEqualTo("ACTIVE");
                    assertThat(port.stateId()).isEqualTo(4);
                    assertThat(port.linkLayer()).isEqualTo(queried.linkLayer().name());
                    assertThat(port.activeMtu()).isEqualTo(queried.activeMtu().bytes());
                    assertThat(port.gids()).isNotEmpty()
                            .allSatisfy(gid -> assertThat(Gid.parse(gid.gid()).isZero()).isFalse());
                    assertThat(port.configured()).isTrue();
                    assertThat(device.resources()).extracting(RdmaEndpoint.ResourceDescriptor::name)
                            .contains(RdmaContextRunners.DEVICE, "pd0", "rpc", "cq0", "sends");
                    assertThat(device.resources()).filteredOn(resource -> resource.name().equals("rpc")).singleElement()
                            .satisfies(rpc -> assertThat(rpc.property())
                                    .isEqualTo(RdmaContextRunners.DEVICE_PROPERTY + ".protection-domains.pd0.queue-pairs.rpc"));
                });
    }

    @Test
    void absentWhenNotExposed() {
        RdmaContextRunners.runner("full").withConfiguration(AutoConfigurations.of(RdmaEndpointAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(RdmaEndpoint.class));
    }
}

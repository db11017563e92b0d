package io.rdma.boot.autoconfigure.endpoint;

import io.rdma.boot.autoconfigure.FabricRunner;
import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint.DeviceDescriptor;
import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint.FabricDescriptor;
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
        FabricRunner.runner("full").withConfiguration(AutoConfigurations.of(RdmaEndpointAutoConfiguration.class))
                .withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=rdma").run(context -> {
                    FabricDescriptor fabric = context.getBean(RdmaEndpoint.class).fabric();
                    assertThat(fabric.provider()).isEqualToIgnoringCase(FabricRunner.PROVIDER.name());
                    assertThat(fabric.selectionReason()).isNotBlank();
                    DeviceDescriptor device = fabric.devices().getFirst();
                    assertThat(device.name()).isEqualTo(FabricRunner.DEVICE);
                    // Real devices (rxe, mlx5) and the simulated one report max_mr_size = 2^64-1; it
                    // must show unsigned, and GUIDs in ibv_devinfo's hex form, never as signed numbers.
                    DeviceAttributes attributes = context.getBean(FabricRunner.DEVICE, DeviceContext.class)
                            .queryDevice();
                    assertThat(device.nodeGuid()).matches("[0-9a-f]{4}(:[0-9a-f]{4}){3}")
                            .isEqualTo(attributes.nodeGuid().toString());
                    assertThat(device.maxMrSize()).isEqualTo(Unsigned64.toBigInteger(attributes.maxMrSize()))
                            .isPositive();
                    PortAttributes queried = context.getBean(FabricRunner.DEVICE, DeviceContext.class).queryPort(1);
                    PortDescriptor port = device.ports().getFirst();
                    assertThat(port.state()).isEqualTo("ACTIVE");
                    assertThat(port.stateId()).isEqualTo(4);
                    assertThat(port.linkLayer()).isEqualTo(queried.linkLayer().name());
                    assertThat(port.activeMtu()).isEqualTo(queried.activeMtu().bytes());
                    assertThat(port.gids()).isNotEmpty()
                            .allSatisfy(gid -> assertThat(Gid.parse(gid.gid()).isZero()).isFalse());
                    assertThat(port.configured()).isTrue();
                    assertThat(device.resources()).extracting(RdmaEndpoint.ResourceDescriptor::name)
                            .contains(FabricRunner.DEVICE, "pd0", "rpc", "cq0", "sends");
                    assertThat(device.resources()).filteredOn(resource -> resource.name().equals("rpc")).singleElement()
                            .satisfies(rpc -> assertThat(rpc.property())
                                    .isEqualTo(FabricRunner.DEVICE_PROPERTY + ".protection-domains.pd0.queue-pairs.rpc"));
                });
    }

    @Test
    void absentWhenNotExposed() {
        FabricRunner.runner("full").withConfiguration(AutoConfigurations.of(RdmaEndpointAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(RdmaEndpoint.class));
    }
}

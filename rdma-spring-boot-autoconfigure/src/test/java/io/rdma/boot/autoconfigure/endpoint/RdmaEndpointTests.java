package io.rdma.boot.autoconfigure.endpoint;

import io.rdma.boot.autoconfigure.FabricRunner;
import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint.DeviceDescriptor;
import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint.FabricDescriptor;
import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint.PortDescriptor;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;

import static org.assertj.core.api.Assertions.assertThat;

class RdmaEndpointTests {

    @Test
    void listsProviderDevicesPortsAndResources() {
        FabricRunner.runner("full").withConfiguration(AutoConfigurations.of(RdmaEndpointAutoConfiguration.class))
                .withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=rdma").run(context -> {
                    FabricDescriptor fabric = context.getBean(RdmaEndpoint.class).fabric();
                    assertThat(fabric.provider()).isEqualTo("simulated");
                    assertThat(fabric.selectionReason()).isNotBlank();
                    DeviceDescriptor device = fabric.devices().getFirst();
                    assertThat(device.name()).isEqualTo("sim0");
                    PortDescriptor port = device.ports().getFirst();
                    assertThat(port.state()).isEqualTo("ACTIVE");
                    assertThat(port.linkLayer()).isEqualTo("ETHERNET");
                    assertThat(port.mtu()).isEqualTo(4096);
                    assertThat(port.gids()).isNotEmpty();
                    assertThat(port.configured()).isTrue();
                    assertThat(device.resources()).extracting(RdmaEndpoint.ResourceDescriptor::name)
                            .contains("sim0", "pd0", "rpc", "cq0", "ingress");
                    assertThat(device.resources()).filteredOn(resource -> resource.name().equals("rpc")).singleElement()
                            .satisfies(rpc -> assertThat(rpc.property())
                                    .isEqualTo("rdma.devices.sim0.protection-domains.pd0.queue-pairs.rpc"));
                });
    }

    @Test
    void absentWhenNotExposed() {
        FabricRunner.runner("full").withConfiguration(AutoConfigurations.of(RdmaEndpointAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(RdmaEndpoint.class));
    }
}

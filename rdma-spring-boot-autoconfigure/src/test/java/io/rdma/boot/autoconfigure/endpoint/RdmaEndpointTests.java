package io.rdma.boot.autoconfigure.endpoint;

import io.rdma.boot.autoconfigure.FabricRunner;
import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint.DeviceDescriptor;
import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint.FabricDescriptor;
import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint.PortDescriptor;

import io.rdma.verbs.api.Gid;
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
                    assertThat(fabric.provider()).isEqualTo("simulated");
                    assertThat(fabric.selectionReason()).isNotBlank();
                    DeviceDescriptor device = fabric.devices().getFirst();
                    assertThat(device.name()).isEqualTo("sim0");
                    // The simulated device reports what rxe and mlx5 do: a GUID with the top bit set
                    // and max_mr_size = 2^64-1; neither may show signed.
                    assertThat(device.nodeGuid()).matches("[0-9a-f]{4}(:[0-9a-f]{4}){3}").startsWith("b8ce:");
                    assertThat(device.maxMrSize()).isEqualTo(Unsigned64.toBigInteger(Unsigned64.MAX))
                            .hasToString("18446744073709551615");
                    PortDescriptor port = device.ports().getFirst();
                    assertThat(port.state()).isEqualTo("ACTIVE");
                    assertThat(port.linkLayer()).isEqualTo("ETHERNET");
                    assertThat(port.stateId()).isEqualTo(4);
                    assertThat(port.activeMtu()).isEqualTo(4096);
                    assertThat(port.gids()).extracting(RdmaEndpoint.GidDescriptor::index).contains(0, 1);
                    assertThat(port.gids()).allSatisfy(gid -> assertThat(Gid.parse(gid.gid()).isZero()).isFalse());
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

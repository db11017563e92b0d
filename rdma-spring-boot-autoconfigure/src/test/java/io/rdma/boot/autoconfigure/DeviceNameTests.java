package io.rdma.boot.autoconfigure;

import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint;
import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint.DeviceDescriptor;
import io.rdma.boot.autoconfigure.endpoint.RdmaEndpointAutoConfiguration;
import io.rdma.boot.autoconfigure.health.RdmaHealthContributorAutoConfiguration;
import io.rdma.boot.autoconfigure.health.RdmaHealthIndicator;
import io.rdma.boot.autoconfigure.metrics.RdmaMetricsAutoConfiguration;
import io.rdma.spring.listener.RdmaListener;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.spring.template.RdmaTemplate;
import io.rdma.verbs.api.Device;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.Verbs;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A device's key under {@code rdma.devices} names its bean and is what its resources and
 * connections belong to; its {@code name} is the device the provider opens, the simulated fabric
 * creates and describes, and the meters, health and endpoint show as the device. Simulated only:
 * a device named sim7 exists on the simulated fabric alone.
 */
@SimulatedOnly
class DeviceNameTests {

    private static final String NIC = "rdma.devices.nic";
    private static final String PD = NIC + ".protection-domains.pd0";

    /** Key nic, device sim7 (described with two ports), with a listener and a client connected to it. */
    private static final String[] NIC_NAMED_SIM7 = {
            NIC + ".name=sim7",
            "rdma.simulated.devices.sim7.ports=2",
            NIC + ".completion-queues.cq0.entries=256",
            PD + ".memory-pools.buffers.buffer-size=1KiB",
            PD + ".memory-pools.buffers.count=64",
            PD + ".queue-pairs.client.max-send-wr=16",
            PD + ".queue-pairs.client.max-recv-wr=16",
            PD + ".queue-pair-prototypes.echo-peer.max-send-wr=16",
            PD + ".queue-pair-prototypes.echo-peer.max-recv-wr=16",
            "rdma.connections.listeners.echo.port=7471",
            "rdma.connections.listeners.echo.max-connections=4",
            "rdma.connections.listeners.echo.queue-pair-prototype=echo-peer",
            "rdma.connections.outbound.echo-client.queue-pair=client",
            "rdma.connections.outbound.echo-client.host=127.0.0.1",
            "rdma.connections.outbound.echo-client.port=7471",
    };

    private static ApplicationContextRunner nicNamedSim7() {
        return RdmaContextRunners.simulatedRunner().withPropertyValues(NIC_NAMED_SIM7)
                .withUserConfiguration(ReceiverConfiguration.class);
    }

    @Test
    void theKeyNamesTheBeanAndTheNameTheDeviceItOpens() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        nicNamedSim7().withBean(ResourceLifecycleRecorder.class, () -> recorder).run(context -> {
            assertThat(context).hasNotFailed();
            DeviceContext nic = context.getBean("nic", DeviceContext.class);
            assertThat(nic.deviceName()).isEqualTo("sim7");
            assertThat(nic.queryDevice().physicalPortCount()).as("ports of rdma.simulated.devices.sim7").isEqualTo(2);
            assertThat(context.getBean(Verbs.class).devices()).extracting(Device::name).containsExactly("sim7");
            assertThat(context.containsBean("sim7")).isFalse();
            assertThat(context.getBean("client", QueuePair.class).context()).isSameAs(nic);
            assertThat(context.getBean(RdmaResources.class).resource("client").orElseThrow().declaration().device())
                    .isEqualTo("nic");

            context.getBean(RdmaTemplate.class).send("client", "hello".getBytes(StandardCharsets.UTF_8))
                    .get(5, TimeUnit.SECONDS);
            assertThat(context.getBean(Receiver.class).received.poll(5, TimeUnit.SECONDS)).isEqualTo("hello");
        });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    @Test
    void metersHealthAndEndpointShowTheDeviceByItsNameBesideItsKey() {
        nicNamedSim7().withConfiguration(AutoConfigurations.of(RdmaMetricsAutoConfiguration.class,
                        RdmaHealthContributorAutoConfiguration.class, RdmaEndpointAutoConfiguration.class))
                .withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=rdma")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    SimpleMeterRegistry registry = new SimpleMeterRegistry();
                    context.getBeansOfType(MeterBinder.class).values().forEach(binder -> binder.bindTo(registry));
                    Map<String, Set<String>> devicesByMeter = registry.getMeters().stream()
                            .filter(meter -> meter.getId().getTag("device") != null)
                            .collect(Collectors.groupingBy(meter -> meter.getId().getName(), Collectors.mapping(
                                    (Meter meter) -> Objects.requireNonNull(meter.getId().getTag("device")),
                                    Collectors.toSet())));
                    assertThat(devicesByMeter).containsKeys("rdma.info", "rdma.state.id", "rdma.async.events",
                            "rdma.memory.pool.buffers", "rdma.pd.registered", "rdma.qp.state.id", "rdma.cq.completions")
                            .allSatisfy((meter, devices) -> assertThat(devices).as(meter).containsExactly("sim7"));

                    assertThat(context.getBean(RdmaHealthIndicator.class).health().getDetails()).containsEntry(
                            "devices", Map.of("nic", Map.of("deviceName", "sim7", "port 1", "ACTIVE")));

                    RdmaEndpoint endpoint = context.getBean(RdmaEndpoint.class);
                    DeviceDescriptor nic = endpoint.device("nic");
                    assertThat(nic).isNotNull();
                    assertThat(nic.name()).isEqualTo("nic");
                    assertThat(nic.deviceName()).isEqualTo("sim7");
                    assertThat(nic.ports()).hasSize(2);
                    assertThat(nic.resources()).extracting(RdmaEndpoint.ResourceDescriptor::name)
                            .contains("nic", "pd0", "client", "cq0");
                    assertThat(endpoint.device("sim7")).as("the paths select a device by its key").isNull();
                    assertThat(endpoint.rdma().devices()).extracting(DeviceDescriptor::deviceName)
                            .containsExactly("sim7");
                });
    }

    static final class Receiver {
        final BlockingQueue<String> received = new LinkedBlockingQueue<>();

        @RdmaListener(connectionListener = "echo")
        void receive(byte[] message) {
            received.add(new String(message, StandardCharsets.UTF_8));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ReceiverConfiguration {

        @Bean
        Receiver receiver() {
            return new Receiver();
        }
    }
}

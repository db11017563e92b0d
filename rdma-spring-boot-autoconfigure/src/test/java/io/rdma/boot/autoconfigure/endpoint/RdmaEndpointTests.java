package io.rdma.boot.autoconfigure.endpoint;

import io.rdma.boot.autoconfigure.IwarpLack;
import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.boot.autoconfigure.SimulatedOnly;
import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint.CompletionQueueDescriptor;
import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint.DeviceDescriptor;
import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint.RdmaDescriptor;
import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint.FlowDescriptor;
import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint.PortDescriptor;
import io.rdma.spring.connection.ConnectionReliability;
import io.rdma.spring.listener.RdmaListener;
import io.rdma.spring.template.RdmaTemplate;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.DeviceAttributes;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.Flow;
import io.rdma.verbs.api.FlowCounters;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.PortAttributes;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.Unsigned64;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.provider.simulated.FabricControl;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

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

    /**
     * A send from the client to the listener's peer is two successful completions on cq0 (the
     * client's send, the peer's receive), which the endpoint shows under the status they had.
     */
    @Test
    void completionQueuesShowTheirCompletionsByStatus() {
        exposed(RdmaContextRunners.runner("connected")).withBean(Server.class).run(context -> {
            assertThat(context).hasNotFailed();
            RdmaEndpoint endpoint = context.getBean(RdmaEndpoint.class);
            long before = successes(endpoint);
            context.getBean(RdmaTemplate.class).send("client", "counted".getBytes(StandardCharsets.UTF_8))
                    .get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> successes(endpoint) >= before + 2);
            assertThat(cq0(endpoint).polling()).isEqualTo("ADAPTIVE");
        });
    }

    /**
     * Simulated only: the client's queue pair fails by fault injection; the listener lets its
     * peer go, whose posted receives are flushed, and cq0 shows them as WR_FLUSH_ERR.
     */
    @Test
    @SimulatedOnly
    void flushedCompletionsShowUnderTheirStatus() {
        exposed(RdmaContextRunners.simulatedRunner("connected")).withBean(Server.class).run(context -> {
            assertThat(context).hasNotFailed();
            RdmaEndpoint endpoint = context.getBean(RdmaEndpoint.class);
            assertThat(cq0(endpoint).completions()).doesNotContainKey(CompletionStatus.WR_FLUSH_ERR);
            context.getBean(Verbs.class).extension(FabricControl.class).orElseThrow().failQueuePair(
                    RdmaContextRunners.DECLARED_DEVICE, context.getBean("client", QueuePair.class).qpNumber());
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    cq0(endpoint).completions().getOrDefault(CompletionStatus.WR_FLUSH_ERR, 0L) > 0);
        });
    }

    /**
     * The client declares ACK timeout 16 and retry count 3, the listener's prototype an RNR timer of
     * 20 and the device's default ACK timeout 12: each connection shows what ibv_query_qp reports
     * for its queue pair, and the time a peer that is gone takes to be noticed, (3 + 1) × 4.096 µs ×
     * 2^16 ≈ 1074 ms (verbs manual §6.2.3).
     */
    @Test
    void connectionsShowTheReliabilitySettingsTheirQueuePairsGot() {
        RdmaContextRunners.assumeInfinibandTransport(IwarpLack.RELIABILITY_SETTINGS);
        String pd = RdmaContextRunners.DEVICE_PROPERTY + ".protection-domains.pd0";
        exposed(RdmaContextRunners.runner("connected")).withBean(Server.class)
                .withPropertyValues(pd + ".queue-pairs.client.reliability.ack-timeout=16",
                        pd + ".queue-pairs.client.reliability.retry-count=3",
                        pd + ".queue-pair-prototypes.echo-peer.reliability.rnr-timer=20",
                        RdmaContextRunners.DEVICE_PROPERTY + ".queue-pair-defaults.reliability.ack-timeout=12")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RdmaEndpoint endpoint = context.getBean(RdmaEndpoint.class);
                    ConnectionReliability client = endpoint.rdma().connections().outbound().getFirst().reliability();
                    assertThat(client).isNotNull();
                    assertThat(client.ackTimeout()).isEqualTo(16);
                    assertThat(client.retryCount()).isEqualTo(3);
                    assertThat(client.ackTimeoutMillis()).isCloseTo(268.435, within(0.001));
                    assertThat(client.failureDetectionMillis()).isCloseTo(1073.742, within(0.001));
                    await().atMost(Duration.ofSeconds(5)).until(() ->
                            !endpoint.rdma().connections().listeners().getFirst().peers().isEmpty());
                    ConnectionReliability peer = endpoint.rdma().connections().listeners().getFirst().peers()
                            .getFirst().reliability();
                    assertThat(peer).isNotNull();
                    assertThat(peer.ackTimeout()).isEqualTo(12);
                    assertThat(peer.rnrTimer()).isEqualTo(20);
                    assertThat(peer.rnrDelayMillis()).isEqualTo(10.24);
                });
    }

    @Test
    void flowsShowThePacketsAndBytesTheirCountersCollected() {
        RdmaContextRunners.assumeDevice(DeviceAttributes::flowCounters, "the device has no flow counters");
        exposed(RdmaContextRunners.runner("flows")).run(context -> {
            FlowCounters counters = context.getBean("ingress", Flow.class).counters();
            long[] values = counters.read();
            FlowDescriptor flow = context.getBean(RdmaEndpoint.class).rdma().devices().getFirst().flows()
                    .getFirst();
            assertThat(flow.name()).isEqualTo("ingress");
            assertThat(flow.port()).isEqualTo(1);
            // flows.yml declares counters: [packets, bytes], at indexes 0 and 1
            assertThat(flow.packets()).isEqualTo(Unsigned64.toBigInteger(values[0]));
            assertThat(flow.bytes()).isEqualTo(Unsigned64.toBigInteger(values[1]));
        });
    }

    private static ApplicationContextRunner exposed(ApplicationContextRunner runner) {
        return runner.withConfiguration(AutoConfigurations.of(RdmaEndpointAutoConfiguration.class))
                .withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=rdma");
    }

    private static CompletionQueueDescriptor cq0(RdmaEndpoint endpoint) {
        return endpoint.rdma().devices().getFirst().completionQueues().stream()
                .filter(cq -> cq.name().equals("cq0")).findFirst().orElseThrow();
    }

    private static long successes(RdmaEndpoint endpoint) {
        Map<CompletionStatus, Long> completions = cq0(endpoint).completions();
        return completions.getOrDefault(CompletionStatus.SUCCESS, 0L);
    }

    /** The listener's side: it receives what the client sends. */
    static final class Server {

        @RdmaListener(connectionListener = "echo")
        void receive(byte[] request) {
        }
    }

    @Test
    void absentWhenNotExposed() {
        RdmaContextRunners.runner("full").withConfiguration(AutoConfigurations.of(RdmaEndpointAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(RdmaEndpoint.class));
    }
}

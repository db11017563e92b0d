package io.rdma.boot.autoconfigure.metrics;

import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.boot.autoconfigure.SimulatedOnly;
import io.rdma.boot.autoconfigure.health.RdmaHealthContributorAutoConfiguration;
import io.rdma.boot.autoconfigure.health.RdmaHealthIndicator;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.spring.template.RdmaTemplate;
import io.rdma.verbs.api.CompletionCounter;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.DeviceAttributes;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.provider.simulated.FabricControl;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;

class RdmaMetricsTests {

    private static final AutoConfigurations METRICS = AutoConfigurations.of(RdmaMetricsAutoConfiguration.class);
    private static final Map<String, String> PORT_1 = Map.of("device", RdmaContextRunners.DEVICE, "port", "1");

    @Test
    void bindsTheProviderDevicePortsAndDeclaredResources() {
        RdmaContextRunners.runner("full").withConfiguration(METRICS).run(context -> {
            PrometheusScrape scrape = new PrometheusScrape(context);
            Verbs verbs = context.getBean(Verbs.class);
            assertThat(scrape.value("rdma_provider_info", Map.of("provider", verbs.providerName(),
                    "requested", RdmaContextRunners.PROVIDER.providerName()))).isEqualTo(1.0);
            assertThat(scrape.value("rdma_live_objects", Map.of("kind", "device_context"))).isGreaterThanOrEqualTo(1.0);
            DeviceAttributes device = context.getBean(DeviceContext.class).queryDevice();
            assertThat(scrape.value("rdma_info", Map.of("device", RdmaContextRunners.DEVICE,
                    "firmware_version", device.firmwareVersion(), "hca_type", device.hcaType()))).isEqualTo(1.0);
            assertThat(scrape.value("rdma_state_id", PORT_1)).isEqualTo(4.0);
            assertThat(scrape.value("rdma_physical_state_id", PORT_1)).isEqualTo(5.0);
            assertThat(scrape.value("rdma_rate_bytes_per_second", PORT_1)).isPositive();
            assertThat(scrape.value("rdma_cq_completions_total", Map.of("cq", "cq0", "status", "success"))).isZero();
            assertThat(scrape.value("rdma_qp_state_id", Map.of("qp", "rpc"))).isBetween(0.0, 6.0);
            assertThat(scrape.value("rdma_memory_pool_buffers", Map.of("pool", "buffers", "state", "leased"))
                    + scrape.value("rdma_memory_pool_buffers", Map.of("pool", "buffers", "state", "free")))
                    .isEqualTo(64.0);
            assertThat(scrape.value("rdma_pd_registered_bytes", Map.of("pd", "pd0"))).isGreaterThanOrEqualTo(64 * 4096.0);
            assertThat(scrape.value("rdma_async_events_total", Map.of("type", "port_err"))).isZero();
        });
    }

    /** Micrometer holds a meter's state object weakly: a collection must not leave the shared snapshots' meters NaN. */
    @Test
    void metersSurviveAGarbageCollection() {
        RdmaContextRunners.runner("full").withConfiguration(METRICS).run(context -> {
            PrometheusScrape scrape = new PrometheusScrape(context);
            System.gc();
            assertThat(scrape.value("rdma_state_id", PORT_1)).isEqualTo(4.0);
            assertThat(scrape.value("rdma_live_objects", Map.of("kind", "device_context"))).isGreaterThanOrEqualTo(1.0);
            assertThat(scrape.samples()).noneSatisfy((series, value) -> assertThat(value).as("%s", series).isNaN());
        });
    }

    /**
     * Simulated only: it injects a fault. A binder is commonly bound and dropped
     * ({@code new PortCounterMetrics(resources).bindTo(registry)}), and Micrometer holds a meter's
     * state object weakly: after a garbage collection the meters of binders nobody keeps still read
     * the device at every scrape, rather than showing NaN or their last value. A port that goes down
     * shows in its state and its counters, a new protection domain in the census.
     */
    @Test
    @SimulatedOnly
    void metersOfBindersNobodyKeepsStillReadTheDeviceAfterAGarbageCollection() {
        RdmaContextRunners.simulatedRunner("full").run(context -> {
            RdmaResources resources = context.getBean(RdmaResources.class);
            PrometheusScrape scrape = new PrometheusScrape(new PortStateMetrics(resources),
                    new PortCounterMetrics(resources), new ProviderMetrics(resources));
            Map<String, String> protectionDomains = Map.of("kind", "protection_domain");
            double before = scrape.value("rdma_live_objects", protectionDomains);
            collectGarbage();

            context.getBean(Verbs.class).extension(FabricControl.class).orElseThrow()
                    .setPortState(RdmaContextRunners.DECLARED_DEVICE, 1, PortState.DOWN);
            try (ProtectionDomain added = context.getBean(DeviceContext.class).allocateProtectionDomain()) {
                assertThat(scrape.samples())
                        .containsEntry(new PrometheusScrape.Series("rdma_state_id", PORT_1), 1.0)
                        .containsEntry(new PrometheusScrape.Series("rdma_link_downed_total", PORT_1), 1.0)
                        .containsEntry(new PrometheusScrape.Series("rdma_live_objects", protectionDomains), before + 1);
            }
        });
    }

    /** Returns once a garbage collection has cleared a weak reference, as it would a meter's state object. */
    private static void collectGarbage() {
        WeakReference<Object> cleared = new WeakReference<>(new Object());
        for (int attempt = 0; attempt < 10 && cleared.get() != null; attempt++) {
            System.gc();
        }
        assertThat(cleared.get()).as("a weak reference after System.gc()").isNull();
    }

    @Test
    void completionCountersAreReadOnScrapeAndStayUnsigned() {
        RdmaContextRunners.runner("full").withConfiguration(METRICS).run(context -> {
            PrometheusScrape scrape = new PrometheusScrape(context);
            Map<String, String> sends = Map.of("counter", "sends");
            assertThat(scrape.value("rdma_comp_cntr_completions_total", sends)).isZero();
            CompletionCounter counter = context.getBean("sends", CompletionCounter.class);
            counter.incrementCompletions(5);
            counter.incrementErrors(2);
            assertThat(scrape.value("rdma_comp_cntr_completions_total", sends)).isEqualTo(5.0);
            assertThat(scrape.value("rdma_comp_cntr_errors_total", sends)).isEqualTo(2.0);
            // ibv_set_comp_cntr takes a u64: past 2^63 the meter stays positive
            counter.setCompletions(Long.MIN_VALUE + 5);
            assertThat(scrape.value("rdma_comp_cntr_completions_total", sends)).isEqualTo(0x1p63);
        });
    }

    /**
     * Simulated only: the port goes down by fault injection. The scrape right after shows it, in
     * the port counters as in the state, and health agrees.
     */
    @Test
    @SimulatedOnly
    void aPortThatGoesDownShowsInTheNextScrapeAndInHealth() {
        RdmaContextRunners.simulatedRunner("full").withConfiguration(METRICS)
                .withConfiguration(AutoConfigurations.of(RdmaHealthContributorAutoConfiguration.class)).run(context -> {
                    PrometheusScrape scrape = new PrometheusScrape(context);
                    assertThat(scrape.value("rdma_state_id", PORT_1)).isEqualTo(4.0);
                    assertThat(scrape.value("rdma_link_downed_total", PORT_1)).isZero();

                    context.getBean(Verbs.class).extension(FabricControl.class).orElseThrow()
                            .setPortState(RdmaContextRunners.DECLARED_DEVICE, 1, PortState.DOWN);

                    Map<PrometheusScrape.Series, Double> next = scrape.samples();
                    assertThat(next).containsEntry(new PrometheusScrape.Series("rdma_state_id", PORT_1), 1.0)
                            .containsEntry(new PrometheusScrape.Series("rdma_physical_state_id", PORT_1), 2.0)
                            .containsEntry(new PrometheusScrape.Series("rdma_link_downed_total", PORT_1), 1.0);
                    assertThat(context.getBean(RdmaHealthIndicator.class).health().getStatus()).isEqualTo(Status.DOWN);
                });
    }

    /**
     * Simulated only: it injects a fault. A send lost beyond RC's retries completes with
     * IBV_WC_RETRY_EXC_ERR and is counted under that status; every status has its series from the start.
     */
    @Test
    @SimulatedOnly
    void aFailedCompletionIsCountedUnderItsStatus() {
        RdmaContextRunners.simulatedRunner("connected").withConfiguration(METRICS).run(context -> {
            PrometheusScrape scrape = new PrometheusScrape(context);
            Map<String, String> retryExceeded = Map.of("cq", "cq0", "status", "retry_exc_err");
            assertThat(scrape.value("rdma_cq_completions_total", retryExceeded)).isZero();
            assertThat(scrape.samples().keySet()).filteredOn(series -> series.name().equals("rdma_cq_completions_total"))
                    .hasSize(CompletionStatus.values().length);

            context.getBean(Verbs.class).extension(FabricControl.class).orElseThrow()
                    .dropPackets(RdmaContextRunners.DECLARED_DEVICE, 1, 8); // the send and retry_cnt = 7 retries
            assertThat(context.getBean(RdmaTemplate.class).send("client", new byte[] {1}))
                    .failsWithin(Duration.ofSeconds(10));

            assertThat(scrape.value("rdma_cq_completions_total", retryExceeded)).isOne();
        });
    }

    /** Simulated only: it describes the device. An InfiniBand port has the PMA counters, under node_exporter's names. */
    @Test
    @SimulatedOnly
    void anInfinibandPortHasThePmaCountersInBytesAndPackets() {
        RdmaContextRunners.simulatedRunner("full").withConfiguration(METRICS).run(context -> {
            Map<PrometheusScrape.Series, Double> samples = new PrometheusScrape(context).samples();
            assertThat(samples.keySet()).extracting(PrometheusScrape.Series::name)
                    .contains("rdma_port_data_transmitted_bytes_total", "rdma_port_data_received_bytes_total",
                            "rdma_port_packets_transmitted_total", "rdma_port_packets_received_total",
                            "rdma_port_discards_transmitted_total", "rdma_link_downed_total")
                    .doesNotContain("rdma_port_hw_stat_total", "rdma_symbol_error_total");
        });
    }

    /**
     * Simulated only: it describes the device. A RoCE port of the fabric is what rxe0 is on
     * Debian 12's kernel: the PMA counters and rxe's own hardware counters, no flow counters,
     * and no meter for what it lacks.
     */
    @Test
    @SimulatedOnly
    void aRocePortHasThePmaCountersAndRxesOwnHardwareCounters() {
        RdmaContextRunners.simulatedRunner("full").withConfiguration(METRICS)
                .withPropertyValues("rdma.simulated.devices.sim0.link-layer=ethernet").run(context -> {
                    Map<PrometheusScrape.Series, Double> samples = new PrometheusScrape(context).samples();
                    assertThat(samples.keySet()).filteredOn(s -> s.name().equals("rdma_port_hw_stat_total"))
                            .extracting(s -> s.labels().get("stat")).containsExactlyInAnyOrder("sent_pkts", "rcvd_pkts");
                    assertThat(samples.keySet()).extracting(PrometheusScrape.Series::name)
                            .contains("rdma_link_downed_total", "rdma_port_packets_transmitted_total",
                                    "rdma_port_data_received_bytes_total")
                            .noneMatch(name -> name.startsWith("rdma_flow_") || name.equals("rdma_symbol_error_total"));
                    assertThat(samples).containsEntry(new PrometheusScrape.Series("rdma_port_info",
                            Map.of("device", "sim0", "port", "1", "link_layer", "ethernet", "active_mtu", "4096")), 1.0);
                });
    }

    @Test
    void bindsFlowCountersByFlowAndIndex() {
        RdmaContextRunners.assumeDevice(DeviceAttributes::flowCounters, "the device has no flow counters");
        RdmaContextRunners.runner("flows").withConfiguration(METRICS).run(context -> {
            PrometheusScrape scrape = new PrometheusScrape(context);
            assertThat(scrape.value("rdma_flow_packets_total", Map.of("flow", "ingress", "index", "0", "port", "1")))
                    .isNotNegative();
            assertThat(scrape.value("rdma_flow_bytes_total", Map.of("flow", "ingress", "index", "1"))).isNotNegative();
        });
    }
}

package io.rdma.boot.autoconfigure.metrics;

import io.rdma.boot.autoconfigure.RdmaContextRunners;

import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where the service exports to Prometheus through Boot, the RDMA families come from
 * {@link RdmaPrometheusCollector}: the scrape must be what Micrometer's own Prometheus registry
 * shows for the same binders ({@link PrometheusScrape}), in both text formats, each family once;
 * the application's meter filters apply; other registries keep the meters.
 */
class RdmaPrometheusCollectorTests {

    private static final AutoConfigurations BOOT_PROMETHEUS = AutoConfigurations.of(MetricsAutoConfiguration.class,
            PrometheusMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
            RdmaMetricsAutoConfiguration.class);

    private static ApplicationContextRunner runner() {
        return RdmaContextRunners.runner("full").withConfiguration(BOOT_PROMETHEUS);
    }

    @Test
    void theScrapeIsMicrometersInBothTextFormatsWithEachFamilyOnce() {
        runner().run(context -> {
            PrometheusMeterRegistry boot = context.getBean(PrometheusMeterRegistry.class);
            PrometheusScrape micrometer = new PrometheusScrape(context);
            for (String format : List.of(PrometheusTextFormatWriter.CONTENT_TYPE, OpenMetricsTextFormatWriter.CONTENT_TYPE)) {
                List<String> expected = rdmaLines(micrometer.registry().scrape(format));
                assertThat(expected).as("Micrometer's scrape").anyMatch(line -> line.startsWith("rdma_comp_cntr_completions_total{"));
                assertThat(rdmaLines(boot.scrape(format))).as("the scrape through Boot, %s", format)
                        .containsExactlyElementsOf(expected);
            }
            assertThat(boot.find("rdma.comp.cntr.completions").meters())
                    .as("Micrometer's Prometheus registry leaves the collected meters out").isEmpty();
        });
    }

    @Test
    void theApplicationsCommonTagsReachTheCollectedFamilies() {
        runner().withPropertyValues("management.metrics.tags.application=kv-store").run(context -> {
            List<String> samples = rdmaLines(context.getBean(PrometheusMeterRegistry.class).scrape()).stream()
                    .filter(line -> !line.startsWith("#")).toList();
            assertThat(samples).isNotEmpty().allMatch(line -> line.contains("application=\"kv-store\""));
        });
    }

    @Test
    void aMeterDisabledByPropertyIsNotServed() {
        runner().withPropertyValues("management.metrics.enable.rdma.comp.cntr=false").run(context -> {
            String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
            assertThat(scrape).doesNotContain("rdma_comp_cntr_").contains("rdma_state_id{");
        });
    }

    @Test
    void anotherRegistryBesidePrometheusKeepsTheMeters() {
        runner().withBean("simple", SimpleMeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            assertThat(context.getBean(SimpleMeterRegistry.class).find("rdma.comp.cntr.completions").meters()).isNotEmpty();
            assertThat(context.getBean(PrometheusMeterRegistry.class).scrape()).contains("rdma_comp_cntr_completions_total{");
            assertThat(context.getBeansOfType(MeterRegistry.class)).hasSizeGreaterThan(2); // the composite too
        });
    }

    /** The lines of the {@code rdma_} families, template observations aside (not a binder's). */
    private static List<String> rdmaLines(String scrape) {
        return scrape.lines().filter(line -> line.matches("(# (HELP|TYPE|UNIT) )?rdma_.*"))
                .filter(line -> !line.contains("rdma_template_")).toList();
    }
}

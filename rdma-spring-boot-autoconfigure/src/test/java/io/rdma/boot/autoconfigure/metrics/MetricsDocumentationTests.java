package io.rdma.boot.autoconfigure.metrics;

import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.verbs.api.DeviceAttributes;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The table of docs/observability.md is the contract: every {@code rdma_*} family a scrape shows
 * is in it, with exactly its labels, and every family in it passes {@code promtool check metrics}
 * when promtool is there (Debian's {@code prometheus} package; {@code -Dpromtool=<path>} or on the PATH).
 */
class MetricsDocumentationTests {

    private static final AutoConfigurations METRICS = AutoConfigurations.of(RdmaMetricsAutoConfiguration.class);
    /** {@code | `rdma_x_total` | counter | `device`, `port` | ...}: a row of the families table. */
    private static final Pattern ROW = Pattern.compile("^\\| `(rdma_[a-z0-9_]+)` \\| (counter|gauge) \\| ([^|]*) \\|",
            Pattern.MULTILINE);
    private static final Pattern LABEL = Pattern.compile("`([a-z_]+)`");

    private record Family(String type, Set<String> labels) {
    }

    @Test
    void everyFamilyAndLabelOfAScrapeIsInTheTable() throws IOException {
        Map<String, Family> documented = documentedFamilies();
        RdmaContextRunners.runner("full").withConfiguration(METRICS)
                .run(context -> assertDocumented(new PrometheusScrape(context), documented));
    }

    @Test
    void everyFlowFamilyAndLabelIsInTheTable() throws IOException {
        RdmaContextRunners.assumeDevice(DeviceAttributes::flowCounters, "the device has no flow counters");
        Map<String, Family> documented = documentedFamilies();
        RdmaContextRunners.runner("flows").withConfiguration(METRICS)
                .run(context -> assertDocumented(new PrometheusScrape(context), documented));
    }

    /** What the binders register, run through promtool's linter as Prometheus scrapes it. */
    @Test
    void aScrapePassesPromtool() {
        Path promtool = promtool();
        RdmaContextRunners.runner("full").withConfiguration(METRICS)
                .run(context -> assertPassesPromtool(promtool, new PrometheusScrape(context).text()));
    }

    /**
     * Every family of the table, hardware-only ones included, registered as the binders register
     * them (dots for underscores, counters without {@code _total}): Prometheus shows each under
     * its documented name, and promtool accepts them all.
     */
    @Test
    void everyDocumentedFamilyHasItsNameInPrometheusAndPassesPromtool() throws IOException, InterruptedException {
        Map<String, Family> documented = documentedFamilies();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        documented.forEach((name, family) -> {
            String[] tags = family.labels().stream().flatMap(label -> java.util.stream.Stream.of(label, "x"))
                    .toArray(String[]::new);
            if (family.type().equals("counter")) {
                String meter = name.substring(0, name.length() - "_total".length()).replace('_', '.');
                FunctionCounter.builder(meter, 1.0, v -> v).description(name).tags(tags).register(registry);
            } else {
                Gauge.builder(name.replace('_', '.'), () -> 1).description(name).tags(tags).register(registry);
            }
        });
        String scrape = registry.scrape();
        Set<String> shown = new TreeSet<>();
        Matcher type = Pattern.compile("^# TYPE (\\S+) (\\S+)$", Pattern.MULTILINE).matcher(scrape);
        while (type.find()) {
            shown.add(type.group(1));
        }
        assertThat(shown).containsExactlyInAnyOrderElementsOf(documented.keySet());
        assertPassesPromtool(promtool(), scrape);
    }

    private static void assertDocumented(PrometheusScrape scrape, Map<String, Family> documented) {
        Map<String, Set<String>> scraped = new LinkedHashMap<>();
        for (PrometheusScrape.Series series : scrape.samples().keySet()) {
            if (series.name().startsWith("rdma_")) {
                scraped.computeIfAbsent(series.name(), name -> new TreeSet<>()).addAll(series.labels().keySet());
            }
        }
        assertThat(scraped).as("the scrape shows rdma_* families").isNotEmpty();
        scraped.forEach((name, labels) -> {
            assertThat(documented).as("docs/observability.md documents %s", name).containsKey(name);
            assertThat(labels).as("the labels of %s, as docs/observability.md lists them", name)
                    .containsExactlyInAnyOrderElementsOf(documented.get(name).labels());
        });
    }

    private static Map<String, Family> documentedFamilies() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "observability.md"));
        Map<String, Family> families = new LinkedHashMap<>();
        Matcher row = ROW.matcher(doc);
        while (row.find()) {
            Set<String> labels = new TreeSet<>();
            Matcher label = LABEL.matcher(row.group(3));
            while (label.find()) {
                labels.add(label.group(1));
            }
            assertThat(families.put(row.group(1), new Family(row.group(2), labels))).as("%s listed once", row.group(1))
                    .isNull();
        }
        assertThat(families).as("families in docs/observability.md").hasSizeGreaterThan(50);
        return families;
    }

    private static Path promtool() {
        Optional<Path> found = Optional.ofNullable(System.getProperty("promtool")).map(Path::of)
                .or(() -> Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                        .map(directory -> Path.of(directory, "promtool")).filter(Files::isExecutable).findFirst());
        assumeTrue(found.isPresent(), "promtool is not installed (Debian: prometheus); -Dpromtool=<path> names it");
        return found.get();
    }

    private static void assertPassesPromtool(Path promtool, String scrape) throws IOException, InterruptedException {
        Process check = new ProcessBuilder(List.of(promtool.toString(), "check", "metrics")).redirectErrorStream(true)
                .start();
        check.getOutputStream().write(scrape.getBytes(StandardCharsets.UTF_8));
        check.getOutputStream().close();
        String problems = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(check.waitFor()).as("promtool check metrics:\n%s\non:\n%s", problems, scrape).isZero();
        assertThat(problems).as("promtool check metrics").isBlank();
    }
}

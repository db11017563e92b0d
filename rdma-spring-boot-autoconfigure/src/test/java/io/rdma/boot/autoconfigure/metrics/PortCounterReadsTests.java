package io.rdma.boot.autoconfigure.metrics;

import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.PortCounters;
import io.rdma.verbs.api.ProviderKind;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * On a real device a scrape reads each port's sysfs counter files in one pass, not once per
 * counter: the read system calls the JVM makes during a scrape of the port-counter meters (Linux's
 * {@code /proc/self/io}, {@code syscr}) are counted against the number of counter files. One pass
 * is about one read per file (and one at its end); once per counter would be files² (about 2,500
 * for rxe0's 50 files).
 *
 * <p>The binder is bound and dropped, as binders commonly are; should its meters stop reading once
 * it is collected, the measured scrape reads nothing, and the count is the 2 reads of
 * {@code /proc/self/io} that measure it.
 */
class PortCounterReadsTests {

    private static final Path PROCESS_IO = Path.of("/proc/self/io");

    @Test
    void aScrapeReadsEachPortsCounterFilesOnce() {
        assumeTrue(RdmaContextRunners.PROVIDER == ProviderKind.NATIVE,
                "the simulated fabric's counters are in memory: there is no sysfs read to count");
        RdmaContextRunners.runner("full").run(context -> {
            RdmaResources resources = context.getBean(RdmaResources.class);
            DeviceContext device = context.getBean(DeviceContext.class);
            int files = 0;
            for (int port : resources.configuredPorts(RdmaContextRunners.DEVICE)) {
                PortCounters counters = device.portCounters(port);
                files += counters.counters().size() + counters.hardwareCounters().size();
            }
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            new PortCounterMetrics(resources).bindTo(registry);
            registry.scrape(); // warmed up: class loading reads jars
            long before = readSystemCalls();
            String scrape = registry.scrape();
            long reads = readSystemCalls() - before;
            assertThat(reads).as("read system calls of one scrape of %d counter files, which gave:%n%s", files,
                            samples(scrape))
                    .isGreaterThanOrEqualTo(files).isLessThanOrEqualTo(3L * files + 20);
        });
    }

    /** The sample lines of a scrape in the text format, without its comments. */
    private static String samples(String scrape) {
        return scrape.lines().filter(line -> !line.startsWith("#")).collect(Collectors.joining(System.lineSeparator()));
    }

    /** {@code syscr}: the read system calls this process has made. */
    private static long readSystemCalls() throws IOException {
        return Files.readAllLines(PROCESS_IO).stream().filter(line -> line.startsWith("syscr:"))
                .mapToLong(line -> Long.parseLong(line.substring("syscr:".length()).trim())).findFirst().orElseThrow();
    }
}

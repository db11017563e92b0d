package io.rdma.boot.autoconfigure.bench;

import io.rdma.boot.autoconfigure.RdmaAutoConfiguration;
import io.rdma.boot.autoconfigure.metrics.RdmaMetricsAutoConfiguration;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One Prometheus scrape of the {@code rdma_*} meters on the simulated fabric, with every RDMA
 * binder bound: {@code scale=large} declares 1,000 completion counters and uses 64 ports of one
 * device (a queue pair on each, which is what makes a port one the meters report), {@code small}
 * one counter and one port. The budget (issue #9) is a large scrape at most 2 ms above a small one.
 * A scrape is {@link PrometheusMeterRegistry#scrape()}: the meters' reads (one sysfs-equivalent read
 * per port, one census read) and the text format. {@code path=boot} is what a service gets: Boot's
 * Prometheus export, where the RDMA families come from {@code RdmaPrometheusCollector};
 * {@code path=micrometer} binds the same binders to a plain {@link PrometheusMeterRegistry}, the
 * per-meter conversion the collector replaces. Run it with
 * {@code ./mvnw -o -pl rdma-spring-boot-autoconfigure -am -Pbench-spring -DskipTests test
 * -Djmh.args=MetricsScrapeBenchmark}.
 *
 * <p>Large is about 2,800 series, small 90. Profiled, nearly all of a micrometer-path scrape is
 * Micrometer's Prometheus registry per series (the naming convention, tag-to-label conversion and
 * validation, each family's points collected from a concurrent map, every scrape); the meters' own
 * reads are a few percent.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class MetricsScrapeBenchmark {

    private static final String DEVICE = "rdma.devices.sim0";
    private static final String PD = DEVICE + ".protection-domains.pd0";

    @Param({"small", "large"})
    public String scale;

    @Param({"boot", "micrometer"})
    public String path;

    private ConfigurableApplicationContext context;
    private PrometheusMeterRegistry registry;

    @Setup(Level.Trial)
    public void start() {
        boolean large = scale.equals("large");
        int counters = large ? 1000 : 1;
        int ports = large ? 64 : 1;
        List<String> properties = new ArrayList<>(List.of(
                "rdma.provider=simulated",
                "rdma.simulated.devices.sim0.ports=" + ports,
                "rdma.simulated.devices.sim0.max-completion-counters=" + counters,
                DEVICE + ".completion-queues.cq0.entries=4096"));
        for (int counter = 0; counter < counters; counter++) {
            properties.add(DEVICE + ".completion-counters.counter" + counter + "="); // {} in YAML: provider memory
        }
        for (int port = 1; port <= ports; port++) {
            String qp = PD + ".queue-pairs.port" + port;
            properties.addAll(List.of(qp + ".port=" + port, qp + ".max-send-wr=1", qp + ".max-recv-wr=1"));
        }
        context = new SpringApplicationBuilder(Fabric.class).web(WebApplicationType.NONE)
                .properties(properties.toArray(String[]::new)).run();
        if (path.equals("boot")) {
            registry = context.getBean(PrometheusMeterRegistry.class);
        } else {
            registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            context.getBeansOfType(MeterBinder.class).values().forEach(binder -> binder.bindTo(registry));
        }
    }

    @Benchmark
    public String scrape() {
        return registry.scrape();
    }

    @TearDown(Level.Trial)
    public void stop() {
        context.close();
    }

    @ImportAutoConfiguration({RdmaAutoConfiguration.class, RdmaMetricsAutoConfiguration.class,
            MetricsAutoConfiguration.class, PrometheusMetricsExportAutoConfiguration.class})
    static class Fabric {
    }
}

package io.rdma.verbs.bench;

import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.Verbs;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.RuntimeMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.DoublePredicate;

/**
 * The Java side of {@code softroce/perftest-baseline.sh}: the same three measurements as
 * perftest, on the same device, through {@code io.rdma.verbs.api} with the native provider,
 * each after an untimed warm-up run of the same code. Prints {@code KEY=VALUE} lines named
 * like perftest-baseline.sh's with a {@code java_} prefix, and, when {@code PERFTEST_RESULTS}
 * names perftest-baseline.sh's results, the ratios Java / C.
 *
 * <pre>
 * softroce/perftest-baseline.sh -- /usr/lib/jvm/temurin-25-jdk-amd64/bin/java \
 *     --enable-native-access=ALL-UNNAMED -cp target/test-classes:target/classes:$(cat target/test-classpath.txt) \
 *     io.rdma.verbs.bench.PerftestComparison
 * </pre>
 *
 * Environment (defaults as perftest-baseline.sh's): {@code PERF_LAT_ITERS} (1000),
 * {@code PERF_BW_ITERS} (2000), {@code PERF_SIZE_LAT} (64), {@code PERF_SIZE_BW} (65536),
 * {@code PERF_SKIP_EVENTS=1}; {@code BENCH_RUN} (which runs, of {@code events,busy,bw});
 * {@code BENCH_WARMUP_BUSY} (round trips before the busy-polling run, 500), {@code BENCH_WARMUP}
 * (round trips before the events run and writes before the bandwidth run, 10000: under
 * emulation C2 needs about that many), {@code RDMA_DEVICE} (rxe0), {@code RDMA_GID_INDEX} (1).
 * Exit status 0 when every run completed and nothing leaked, whether or not the targets were
 * met ({@code target_*_met} says).
 */
public final class PerftestComparison {

    /** ib_send_lat's receive depth: {@code DEF_RX_SEND}, at most the iterations. */
    private static final int RECEIVE_DEPTH = 512;
    /** ib_write_bw's send queue depth: {@code DEF_TX_BW}. */
    private static final int WRITE_TX_DEPTH = 128;
    private static final double LATENCY_TARGET = 1.05;
    private static final double BANDWIDTH_TARGET = 0.95;

    private PerftestComparison() {
    }

    public static void main(String[] args) throws Exception {
        int latencyIterations = setting("PERF_LAT_ITERS", 1000);
        int bandwidthIterations = setting("PERF_BW_ITERS", 2000);
        int latencyBytes = setting("PERF_SIZE_LAT", 64);
        int bandwidthBytes = setting("PERF_SIZE_BW", 65536);
        int busyWarmup = setting("BENCH_WARMUP_BUSY", 500);
        int warmup = setting("BENCH_WARMUP", 10000);
        int gidIndex = setting("RDMA_GID_INDEX", 1);
        boolean events = setting("PERF_SKIP_EVENTS", 0) != 1;
        Set<String> runs = Set.of(System.getenv().getOrDefault("BENCH_RUN", "events,busy,bw").split(","));
        String device = System.getenv().getOrDefault("RDMA_DEVICE", "rxe0");

        Map<String, String> figures = new LinkedHashMap<>();
        figures.put("java_vm", Runtime.version() + " " + String.join(" ",
                ManagementFactory.getRuntimeMXBean().getInputArguments()));
        figures.put("java_jit", ManagementFactory.getRuntimeMXBean().getInputArguments()
                .contains("-XX:TieredStopAtLevel=1") ? "C1" : "C1+C2");
        figures.put("java_vcpus", Integer.toString(Runtime.getRuntime().availableProcessors()));
        figures.put("java_warmup", Integer.toString(warmup));
        figures.put("java_warmup_busy", Integer.toString(busyWarmup));
        long started = System.nanoTime();
        Verbs verbs = Verbs.open(ProviderKind.NATIVE);
        try (DeviceContext context = verbs.device(device).open()) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            int receiveDepth = Math.min(RECEIVE_DEPTH, Math.max(latencyIterations, warmup));
            if (runs.contains("events") && events) {
                SendLatency latency = new SendLatency(context, pd, latencyBytes, receiveDepth, true, gidIndex);
                timed("send latency, events: warm-up of " + warmup, () -> latency.run(warmup));
                put(figures, "java_send_lat_events",
                        timed("send latency, events", () -> latency.run(latencyIterations)));
            }
            if (runs.contains("busy")) {
                SendLatency latency = new SendLatency(context, pd, latencyBytes, receiveDepth, false, gidIndex);
                timed("send latency, busy polling: warm-up of " + busyWarmup, () -> latency.run(busyWarmup));
                put(figures, "java_send_lat",
                        timed("send latency, busy polling", () -> latency.run(latencyIterations)));
            }
            if (runs.contains("bw")) {
                WriteBandwidth bandwidth = new WriteBandwidth(context, pd, bandwidthBytes, WRITE_TX_DEPTH, gidIndex);
                timed("write bandwidth: warm-up of " + warmup, () -> {
                    bandwidth.warmUp(warmup);
                    return null;
                });
                putAll(figures, timed("write bandwidth", () -> bandwidth.run(bandwidthIterations))
                        .keyValues("java_write_bw"));
            }
        } finally {
            verbs.close();
        }
        long live = verbs.liveObjects().values().stream().mapToLong(Long::longValue).sum();
        figures.put("java_live_objects_after_close", Long.toString(live));
        figures.put("java_seconds", String.format(Locale.ROOT, "%.1f", (System.nanoTime() - started) / 1e9));
        figures.forEach((key, value) -> System.out.println(key + "=" + value));

        String results = System.getenv("PERFTEST_RESULTS");
        if (results != null && Files.isReadable(Path.of(results))) {
            ratios(figures, readKeyValues(Path.of(results))).forEach((key, value) ->
                    System.out.println(key + "=" + value));
        }
        System.exit(live == 0 ? 0 : 3);
    }

    /**
     * Runs one phase, telling stderr when it started and ended in JVM uptime, which
     * {@code -XX:+PrintCompilation} also prints: so compilations can be placed in phases.
     */
    private static <T> T timed(String phase, Callable<T> run) throws Exception {
        RuntimeMXBean runtime = ManagementFactory.getRuntimeMXBean();
        long from = runtime.getUptime();
        System.err.printf(Locale.ROOT, "perftest-comparison: %s: from %d ms%n", phase, from);
        T result = run.call();
        long to = runtime.getUptime();
        System.err.printf(Locale.ROOT, "perftest-comparison: %s: until %d ms (%.1f s)%n", phase, to,
                (to - from) / 1e3);
        return result;
    }

    private static void put(Map<String, String> figures, String prefix, SendLatency.Result result) {
        putAll(figures, result.figures().keyValues(prefix));
        figures.put(prefix + "_alloc_bytes_per_op_client", String.format(Locale.ROOT, "%.3f",
                result.clientBytesPerRoundTrip()));
        figures.put(prefix + "_alloc_bytes_per_op_server", String.format(Locale.ROOT, "%.3f",
                result.serverBytesPerRoundTrip()));
    }

    private static void putAll(Map<String, String> figures, String keyValues) {
        keyValues.lines().forEach(line -> {
            int equals = line.indexOf('=');
            figures.put(line.substring(0, equals), line.substring(equals + 1));
        });
    }

    /** Java / C for each figure both sides have, and whether the targets were met. */
    static Map<String, String> ratios(Map<String, String> java, Map<String, String> perftest) {
        Map<String, String> ratios = new LinkedHashMap<>();
        for (String figure : new String[] {"send_lat_us_typical", "send_lat_us_avg", "send_lat_us_p99",
                "send_lat_events_us_typical", "send_lat_events_us_avg", "send_lat_events_us_p99",
                "write_bw_MBps", "write_bw_MBps_peak"}) {
            String javaValue = java.get("java_" + figure);
            String cValue = perftest.get("ib_" + figure);
            if (javaValue != null && cValue != null) {
                ratios.put("ratio_" + figure, String.format(Locale.ROOT, "%.3f",
                        Double.parseDouble(javaValue) / Double.parseDouble(cValue)));
            }
        }
        if (busyPollingIsTickBound(perftest)) {
            ratios.put("note_send_lat_us_typical", "tick-bound: perftest's busy-polling latency ("
                    + perftest.get("ib_send_lat_us_typical") + " us) is above its event-driven one ("
                    + perftest.get("ib_send_lat_events_us_typical") + " us), so both sides wait for the guest's"
                    + " scheduler tick and the busy ratio cannot show the cost of either path");
            ratios.put("target_send_lat_us_typical_met", "not measurable here");
        } else {
            target(ratios, "send_lat_us_typical", ratio -> ratio <= LATENCY_TARGET);
        }
        target(ratios, "send_lat_events_us_typical", ratio -> ratio <= LATENCY_TARGET);
        target(ratios, "write_bw_MBps", ratio -> ratio >= BANDWIDTH_TARGET);
        return ratios;
    }

    /**
     * Busy polling that is slower than sleeping on completion events measures the scheduler, not
     * the verbs path: under single-threaded emulation the two spinning pollers take turns on one
     * host thread and each message waits for the guest's tick (4 ms at HZ=250), for perftest and
     * Java alike, so their ratio is 1.000 whatever either does.
     */
    static boolean busyPollingIsTickBound(Map<String, String> perftest) {
        String busy = perftest.get("ib_send_lat_us_typical");
        String events = perftest.get("ib_send_lat_events_us_typical");
        return busy != null && events != null && Double.parseDouble(busy) > Double.parseDouble(events);
    }

    private static void target(Map<String, String> ratios, String figure, DoublePredicate met) {
        String ratio = ratios.get("ratio_" + figure);
        if (ratio != null) {
            ratios.put("target_" + figure + "_met", Boolean.toString(met.test(Double.parseDouble(ratio))));
        }
    }

    static Map<String, String> readKeyValues(Path file) throws IOException {
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file)) {
            int equals = line.indexOf('=');
            if (equals > 0) {
                values.put(line.substring(0, equals).trim(), line.substring(equals + 1).trim());
            }
        }
        return values;
    }

    private static int setting(String name, int defaultValue) {
        String value = System.getenv(name);
        if (value == null || value.isBlank()) {
            return defaultValue;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer, not '" + value + "'", e);
        }
    }
}

package io.rdma.boot.autoconfigure.bench;

import io.rdma.spring.listener.RdmaListener;
import io.rdma.spring.template.RdmaTemplate;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

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
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One request/reply round trip as a user writes it, on the simulated fabric: a 64-byte
 * {@code byte[]} sent with {@link RdmaTemplate#sendAndReceive(String, byte[], Duration)} on the
 * declared queue pair {@code client}, answered by an {@code @RdmaListener} method that returns
 * it, the caller blocked on the future's {@code get()} until the reply is there. {@code dispatch}
 * picks where the method runs: {@code pollerThread} ({@code onPollerThread}, no hand-over) or
 * {@code workers} (the default: a worker thread, no concurrency limit). {@code idle} is
 * the completion queue's idle strategy. The score is the time of one round trip, sampled (p50,
 * p99, p99.9 in JMH's percentiles); {@code -prof gc} gives the bytes every thread allocated per
 * round trip. {@link TcpLoopbackBenchmark} is the baseline to run with it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class RequestReplyBenchmark {

    static final int MESSAGE = 64;
    /** Far above any round trip: a timeout here is a failure of the run, not a figure. */
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private static final byte[] REQUEST = new byte[MESSAGE];

    @Param({"pollerThread", "workers"})
    public String dispatch;

    /** The completion queue's idle strategy ({@code rdma.devices.*.completion-queues.*.idle}). */
    @Param({"spin", "backoff"})
    public String idle;

    private ConfigurableApplicationContext context;
    private RdmaTemplate template;

    @Setup(Level.Trial)
    public void start() throws InterruptedException, ExecutionException {
        context = SimulatedFabric.start(dispatch.equals("pollerThread") ? PollerThreadEcho.class : WorkerEcho.class,
                SimulatedFabric.CQ + ".idle=" + idle);
        template = context.getBean(RdmaTemplate.class);
        // The channel is up once the connection manager connected it: retry until a first reply.
        while (true) {
            try {
                template.sendAndReceive("client", REQUEST, TIMEOUT).get();
                return;
            } catch (RuntimeException | ExecutionException notYet) {
                Thread.sleep(10);
            }
        }
    }

    @Benchmark
    public byte[] roundTrip() throws InterruptedException, ExecutionException {
        return template.sendAndReceive("client", REQUEST, TIMEOUT).get();
    }

    @TearDown(Level.Trial)
    public void stop() {
        context.close();
    }

    static class PollerThreadEcho {
        @RdmaListener(connectionListener = "sink", onPollerThread = true)
        byte[] echo(byte[] request) {
            return request;
        }
    }

    static class WorkerEcho {
        @RdmaListener(connectionListener = "sink")
        byte[] echo(byte[] request) {
            return request;
        }
    }
}

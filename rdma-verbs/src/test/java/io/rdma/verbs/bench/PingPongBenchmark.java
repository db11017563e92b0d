package io.rdma.verbs.bench;

import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.Verbs;

import java.util.Locale;
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

/**
 * One round trip of a 64-byte RC SEND between two connected queue pairs, as ib_send_lat makes it
 * ({@link PerftestPeer}: signaled inline sends, a ring of receives reposted as they are used):
 * the floor the template's request/reply is measured against. {@code threads} picks who drives
 * the answering end: {@code one}, the benchmark thread itself, which posts, takes the message
 * at the other end, answers and takes the answer (no hand-over between threads at all);
 * {@code two}, an echo thread of its own that busy-polls its CQ, as a peer service would, while
 * the benchmark thread busy-polls the other. The score is the time of one round trip, sampled
 * (p50, p99 and p99.9 in JMH's percentiles); {@code -prof gc} shows the bytes allocated per round
 * trip by every thread. The provider is {@code -Drdma.provider} (simulated by default).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class PingPongBenchmark {

    static final int MESSAGE = 64;
    static final int RECEIVE_DEPTH = 16;

    @Param({"one", "two"})
    public String threads;

    private Verbs verbs;
    private PerftestPeer client;
    private PerftestPeer server;
    private Thread echo;

    @Setup(Level.Trial)
    public void connect() {
        ProviderKind kind = ProviderKind.valueOf(System.getProperty("rdma.provider", "simulated")
                .toUpperCase(Locale.ROOT));
        verbs = Verbs.open(kind);
        DeviceContext context = verbs.devices().getFirst().open();
        ProtectionDomain pd = context.allocateProtectionDomain();
        client = new PerftestPeer(context, pd, 1, RECEIVE_DEPTH, MESSAGE, false);
        server = new PerftestPeer(context, pd, 1, RECEIVE_DEPTH, MESSAGE, false);
        int gidIndex = Integer.getInteger("rdma-test.gid-index", 0);
        client.connect(server, gidIndex);
        server.connect(client, gidIndex);
        client.prepareSend();
        server.prepareSend();
        client.postReceives();
        server.postReceives();
        if (threads.equals("two")) {
            echo = Thread.ofPlatform().name("echo").start(this::echo);
        }
    }

    @Benchmark
    public void roundTrip() throws InterruptedException {
        client.postAndComplete(0);
        if (echo == null) {
            answer();
        }
        client.receiveAndRepost();
    }

    private void answer() throws InterruptedException {
        server.receiveAndRepost();
        server.postAndComplete(0);
    }

    /** Answers every message until interrupted, busy polling. */
    private void echo() {
        try {
            while (true) {
                answer();
            }
        } catch (InterruptedException e) {
            // the trial is over
        }
    }

    @TearDown(Level.Trial)
    public void close() throws InterruptedException {
        if (echo != null) {
            echo.interrupt();
            echo.join();
        }
        verbs.close();
    }
}

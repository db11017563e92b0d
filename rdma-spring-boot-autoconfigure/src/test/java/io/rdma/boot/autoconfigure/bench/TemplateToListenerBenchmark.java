package io.rdma.boot.autoconfigure.bench;

import io.rdma.spring.listener.RdmaListener;
import io.rdma.spring.listener.ReceivedBuffer;
import io.rdma.spring.template.RdmaTemplate;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

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
import org.jspecify.annotations.Nullable;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The template path one way, on the simulated fabric: a 64-byte message sent through
 * {@link RdmaTemplate} on a declared queue pair, connected through the connection manager to
 * the peer a listener accepts, and delivered to an {@code @RdmaListener} method that counts it.
 * {@code dispatch} picks where the method runs: {@code workers}, on the listener's one worker
 * thread (concurrency 1), handed each message by the completion poller; {@code pollerThread}, on
 * the poller's thread itself ({@code onPollerThread}, for methods that never block), with no
 * hand-over. {@code path} picks both ends: {@code bytes} sends a
 * {@code byte[]} (copied into the send buffer) to a method taking {@code byte[]} (copied out of
 * the receive buffer); {@code zeroCopy} writes into the leased send buffer
 * ({@code send(queuePair, length, writer)}) for a method taking the {@link ReceivedBuffer};
 * {@code zeroCopyForgotten} is {@code zeroCopy} sent without a future ({@code sendAndForget}).
 *
 * <p>One operation is one message sent; the sender runs at most {@value #WINDOW} messages ahead
 * of the listener, fewer than the send and receive queues hold, so neither back-pressure path is
 * measured, and the score is messages per second delivered. Allocation ({@code -prof gc},
 * {@code gc.alloc.rate.norm}) counts every thread of the JVM per message: sender, poller, listener.
 * Warm-up 3 × 2 s, measurement 5 × 2 s, one fork, as annotated; run it with
 * {@code ./mvnw -pl rdma-spring-boot-autoconfigure -am -Pbench-spring -DskipTests test}
 * ({@code -Djmh.args="..."} for other JMH options).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class TemplateToListenerBenchmark {

    static final int MESSAGE = 64;
    static final int WINDOW = SimulatedFabric.WINDOW;

    private static final byte[] PAYLOAD = new byte[MESSAGE];
    private static final Consumer<MemorySegment> WRITER = segment -> segment.set(ValueLayout.JAVA_LONG, 0, 42L);

    /** Messages the listener method has handled, by either path. */
    static final AtomicLong HANDLED = new AtomicLong();
    /** How long a {@code park} sender spins for room before it parks, as the template's futures spin before they park. */
    private static final long SENDER_SPIN_NANOS = 20_000;
    /** The parked sender, and how many messages handled wake it: half its window drained. */
    private static volatile @Nullable Thread parkedSender;
    private static volatile long wakeAt = Long.MAX_VALUE;

    @Param({"bytes", "zeroCopy", "zeroCopyForgotten"})
    public String path;

    @Param({"workers", "pollerThread"})
    public String dispatch;

    /** The completion queue's idle strategy ({@code rdma.devices.*.completion-queues.*.idle}). */
    @Param({"spin", "backoff"})
    public String idle;

    /**
     * How the sender waits for room in its window: {@code spin} busy-waits; {@code park} spins
     * briefly, then parks until the listener has drained half the window, as a sender blocked on
     * its futures would (with a second process on one of two cores, a sender that spins holds the
     * core the poller needs until the scheduler preempts it).
     */
    @Param({"spin", "park"})
    public String sender;

    private ConfigurableApplicationContext context;
    private RdmaTemplate template;
    private long sent;

    @Setup(Level.Trial)
    public void start() throws InterruptedException {
        boolean onPoller = dispatch.equals("pollerThread");
        Class<?> listener = path.startsWith("zeroCopy")
                ? (onPoller ? ZeroCopyPollerListener.class : ZeroCopyListener.class)
                : (onPoller ? BytesPollerListener.class : BytesListener.class);
        context = SimulatedFabric.start(listener, SimulatedFabric.CQ + ".idle=" + idle);
        template = context.getBean(RdmaTemplate.class);
        // The peer's receive queue is filled once the connection is up: wait for a first message.
        HANDLED.set(0);
        sent = 0;
        while (HANDLED.get() == 0) {
            send();
            Thread.sleep(10);
        }
        sent = HANDLED.get();
    }

    @Benchmark
    public void sendOneMessage() {
        if (sender.equals("park")) {
            awaitRoomParking();
        }
        while (sent - HANDLED.get() >= WINDOW) {
            Thread.onSpinWait();
        }
        send();
    }

    private void awaitRoomParking() {
        long spinUntil = System.nanoTime() + SENDER_SPIN_NANOS;
        while (sent - HANDLED.get() >= WINDOW && System.nanoTime() < spinUntil) {
            Thread.onSpinWait();
        }
        while (sent - HANDLED.get() >= WINDOW) {
            wakeAt = sent - WINDOW / 2;
            parkedSender = Thread.currentThread();
            // checked again once the listener can see the parked sender, so no wake-up is lost
            if (HANDLED.get() < wakeAt) {
                LockSupport.park(this);
            }
            parkedSender = null;
            wakeAt = Long.MAX_VALUE;
        }
    }

    /** Counts a handled message and wakes a parked sender once half its window is drained. */
    static void handled() {
        if (HANDLED.incrementAndGet() >= wakeAt) {
            Thread parked = parkedSender;
            if (parked != null) {
                LockSupport.unpark(parked);
            }
        }
    }

    private void send() {
        if (path.equals("zeroCopy")) {
            template.send("client", MESSAGE, WRITER);
        } else if (path.equals("zeroCopyForgotten")) {
            template.sendAndForget("client", MESSAGE, WRITER);
        } else {
            template.send("client", PAYLOAD);
        }
        sent++;
    }

    @TearDown(Level.Trial)
    public void stop() {
        context.close();
    }

    static class BytesListener {
        @RdmaListener(connectionListener = "sink", concurrency = 1)
        void receive(byte[] payload) {
            handled();
        }
    }

    static class ZeroCopyListener {
        /** What the method read from the payload, kept so the read is not optimised away. */
        volatile long lastValue;

        @RdmaListener(connectionListener = "sink", concurrency = 1)
        void receive(ReceivedBuffer buffer) {
            lastValue = buffer.payload().get(ValueLayout.JAVA_LONG, 0);
            handled();
        }
    }

    static class BytesPollerListener {
        @RdmaListener(connectionListener = "sink", onPollerThread = true)
        void receive(byte[] payload) {
            handled();
        }
    }

    static class ZeroCopyPollerListener {
        /** What the method read from the payload, kept so the read is not optimised away. */
        volatile long lastValue;

        @RdmaListener(connectionListener = "sink", onPollerThread = true)
        void receive(ReceivedBuffer buffer) {
            lastValue = buffer.payload().get(ValueLayout.JAVA_LONG, 0);
            handled();
        }
    }
}

package io.rdma.verbs.bench;

import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * 64-byte RC send/receive with one sender thread and one receiver thread, as a service would
 * run them. The receiver grants credits as it reposts receives, so the sender never meets an
 * empty receive queue (no RNR). The score is messages per second: the receiver runs on a
 * thread of its own rather than as a second method of a JMH group, whose score would add its
 * polls, empty ones included, to the messages.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class SendReceivePairBenchmark {

    static final int BATCH = 16;
    static final int MESSAGE = 64;

    /** Receive chains of 16 kept posted: the receive queue depth the sender may run ahead by. */
    @Param({"8"})
    public int chains;

    private LoopbackPair pair;
    private final SendWorkRequest[] sends = new SendWorkRequest[BATCH];
    private ReceiveWorkRequest[][] receiveChains;
    private final AtomicInteger credits = new AtomicInteger();
    private Thread receiverThread;
    private volatile boolean receiving;

    @Setup(Level.Trial)
    public void connect() {
        pair = new LoopbackPair(BATCH * chains, BATCH * MESSAGE);
        receiveChains = new ReceiveWorkRequest[chains][BATCH];
        for (int i = 0; i < BATCH; i++) {
            sends[i] = new SendWorkRequest().wrId(i)
                    .flags(i == BATCH - 1 ? EnumSet.of(SendFlag.SIGNALED) : EnumSet.noneOf(SendFlag.class))
                    .addSge(pair.senderMemory, (long) i * MESSAGE, MESSAGE);
            if (i > 0) {
                sends[i - 1].append(sends[i]);
            }
        }
        for (ReceiveWorkRequest[] chain : receiveChains) {
            for (int i = 0; i < BATCH; i++) {
                chain[i] = new ReceiveWorkRequest().wrId(i).addSge(pair.receiverMemory, (long) i * MESSAGE, MESSAGE);
                if (i > 0) {
                    chain[i - 1].append(chain[i]);
                }
            }
            pair.receiver.postReceive(chain[0]);
        }
        credits.set(BATCH * chains);
        receiving = true;
        receiverThread = Thread.ofPlatform().name("receiver").start(this::receive);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void send() {
        while (credits.get() < BATCH) {
            Thread.onSpinWait();
        }
        credits.addAndGet(-BATCH);
        pair.sender.postSend(sends[0]);
        LoopbackPair.drain(pair.senderCq, pair.senderCompletions, 1);
    }

    /** Polls and reposts each chain of 16 once its messages arrived, granting the sender 16 credits. */
    private void receive() {
        int receivedSinceRepost = 0;
        int nextChain = 0;
        while (receiving) {
            receivedSinceRepost += pair.receiverCq.poll(pair.receiverCompletions);
            while (receivedSinceRepost >= BATCH) {
                receivedSinceRepost -= BATCH;
                pair.receiver.postReceive(receiveChains[nextChain][0]);
                nextChain = (nextChain + 1) % chains;
                credits.addAndGet(BATCH);
            }
        }
    }

    @TearDown(Level.Trial)
    public void close() throws InterruptedException {
        receiving = false;
        receiverThread.join();
        pair.close();
    }
}

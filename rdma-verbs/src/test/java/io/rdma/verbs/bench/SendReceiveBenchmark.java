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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * 64-byte RC send/receive through the whole data path: chained receives, chained sends with
 * only the last signaled (doorbell batching, verbs manual §12.5), and both CQs polled into reusable
 * batches. Run with {@code -prof gc} to see the allocation per message.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class SendReceiveBenchmark {

    static final int BATCH = 16;
    static final int MESSAGE = 64;

    private LoopbackPair pair;
    private final SendWorkRequest[] sends = new SendWorkRequest[BATCH];
    private final ReceiveWorkRequest[] receives = new ReceiveWorkRequest[BATCH];

    @Setup(Level.Trial)
    public void connect() {
        pair = new LoopbackPair(BATCH * 4, BATCH * MESSAGE);
        for (int i = 0; i < BATCH; i++) {
            sends[i] = new SendWorkRequest().wrId(i)
                    .flags(i == BATCH - 1 ? EnumSet.of(SendFlag.SIGNALED) : EnumSet.noneOf(SendFlag.class))
                    .addSge(pair.senderMemory, (long) i * MESSAGE, MESSAGE);
            receives[i] = new ReceiveWorkRequest().wrId(i).addSge(pair.receiverMemory, (long) i * MESSAGE, MESSAGE);
            if (i > 0) {
                sends[i - 1].append(sends[i]);
                receives[i - 1].append(receives[i]);
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void sendReceive64Bytes() {
        pair.receiver.postReceive(receives[0]);
        pair.sender.postSend(sends[0]);
        LoopbackPair.drain(pair.receiverCq, pair.receiverCompletions, BATCH);
        LoopbackPair.drain(pair.senderCq, pair.senderCompletions, 1);
    }

    @TearDown(Level.Trial)
    public void close() {
        pair.close();
    }
}

package io.rdma.verbs.bench;

import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
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

/**
 * RDMA write bandwidth: chains of writes of {@code size} bytes, the last one signaled.
 * Bandwidth is ops/s × size; {@code -prof gc} shows the allocation per write.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class RdmaWriteBenchmark {

    static final int BATCH = 8;

    @Param({"65536"})
    public int size;

    private LoopbackPair pair;
    private final SendWorkRequest[] writes = new SendWorkRequest[BATCH];

    @Setup(Level.Trial)
    public void connect() {
        pair = new LoopbackPair(BATCH * 4, (long) BATCH * size);
        for (int i = 0; i < BATCH; i++) {
            writes[i] = new SendWorkRequest().wrId(i).opcode(SendOpcode.RDMA_WRITE)
                    .flags(i == BATCH - 1 ? EnumSet.of(SendFlag.SIGNALED) : EnumSet.noneOf(SendFlag.class))
                    .addSge(pair.senderMemory, (long) i * size, size)
                    .remote(pair.receiverMemory.remote((long) i * size, size));
            if (i > 0) {
                writes[i - 1].append(writes[i]);
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void rdmaWrite() {
        pair.sender.postSend(writes[0]);
        LoopbackPair.drain(pair.senderCq, pair.senderCompletions, 1);
    }

    @TearDown(Level.Trial)
    public void close() {
        pair.close();
    }
}

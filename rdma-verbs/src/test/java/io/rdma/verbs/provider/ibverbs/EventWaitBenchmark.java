package io.rdma.verbs.provider.ibverbs;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The native provider's event wait ({@code poll(2)} through an exact downcall with errno
 * captured into preallocated memory), on a pipe that is always readable: runs on any Linux
 * host, no RDMA device needed. With {@code -prof gc} it shows the wait allocates nothing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class EventWaitBenchmark {

    private Pipe pipe;
    private EventDescriptor descriptor;

    @Setup(Level.Trial)
    public void openPipe() throws Throwable {
        pipe = new Pipe();
        pipe.write();
        descriptor = pipe.readDescriptor();
    }

    @Benchmark
    public boolean awaitReadable() throws InterruptedException {
        return descriptor.awaitReadable(System.nanoTime(), "read");
    }

    @TearDown(Level.Trial)
    public void closePipe() throws Throwable {
        pipe.close();
    }
}

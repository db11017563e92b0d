package io.rdma.verbs.provider.nativ;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Waits on the read end of a pipe(2): readable when written, empty on time, no allocation per wait. */
class EventDescriptorTest {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle PIPE = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("pipe"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    private static final MethodHandle WRITE = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("write"),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                    ValueLayout.JAVA_LONG));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("close"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    private final Arena arena = Arena.ofConfined();
    private int readEnd;
    private int writeEnd;
    private EventDescriptor descriptor;

    @BeforeEach
    void openPipe() throws Throwable {
        MemorySegment fds = arena.allocate(ValueLayout.JAVA_INT, 2);
        assertThat((int) PIPE.invokeExact(fds)).isZero();
        readEnd = fds.getAtIndex(ValueLayout.JAVA_INT, 0);
        writeEnd = fds.getAtIndex(ValueLayout.JAVA_INT, 1);
        Libc.makeNonBlocking(readEnd, "the pipe's read end");
        descriptor = new EventDescriptor(readEnd, arena);
    }

    @AfterEach
    void closePipe() throws Throwable {
        int closedRead = (int) CLOSE.invokeExact(readEnd);
        int closedWrite = (int) CLOSE.invokeExact(writeEnd);
        arena.close();
        assertThat(closedRead).isZero();
        assertThat(closedWrite).isZero();
    }

    @Test
    void aWrittenDescriptorIsReadableAtOnce() throws Throwable {
        long written = (long) WRITE.invokeExact(writeEnd, arena.allocate(8), 8L);
        assertThat(written).isEqualTo(8);
        long started = System.nanoTime();
        assertThat(descriptor.awaitReadable(started + Duration.ofSeconds(10).toNanos(), "read")).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void anEmptyDescriptorTimesOutOnTime() throws InterruptedException {
        long started = System.nanoTime();
        assertThat(descriptor.awaitReadable(started + Duration.ofMillis(250).toNanos(), "read")).isFalse();
        Duration waited = Duration.ofNanos(System.nanoTime() - started);
        // longer than one 100 ms slice, so the deadline spans several polls
        assertThat(waited).isBetween(Duration.ofMillis(250), Duration.ofSeconds(5));
        assertThat(descriptor.awaitReadable(System.nanoTime(), "read")).as("a passed deadline only checks").isFalse();
    }

    @Test
    void anInterruptEndsTheWait() {
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> descriptor.awaitReadable(System.nanoTime() + Duration.ofSeconds(10).toNanos(),
                "ibv_get_cq_event")).isInstanceOf(InterruptedException.class).hasMessageContaining("ibv_get_cq_event");
    }

    @Test
    void aWaitAllocatesNothing() throws Throwable {
        long written = (long) WRITE.invokeExact(writeEnd, arena.allocate(8), 8L);
        assertThat(written).isEqualTo(8);
        com.sun.management.HotSpotDiagnosticMXBean vm =
                ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
        assumeTrue(Integer.parseInt(vm.getVMOption("TieredStopAtLevel").getValue()) == 4,
                "C1 alone (the Soft-RoCE runner's default) has no escape analysis: 40 B per downcall");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        // the interpreter and C1 allocate around a downcall; C2 must not. Rounds until the JIT
        // compiled the loop (the compiler threads may be busy with other tests' code)
        long allocated = -1;
        for (int round = 0; round < 100 && allocated != 0; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            waitMany(10_000);
            allocated = threads.getCurrentThreadAllocatedBytes() - before;
        }
        assertThat(allocated).as("bytes allocated by 10000 waits, once compiled").isZero();
    }

    private void waitMany(int waits) throws InterruptedException {
        for (int i = 0; i < waits; i++) {
            if (!descriptor.awaitReadable(System.nanoTime(), "read")) {
                throw new AssertionError("the written pipe is not readable");
            }
        }
    }
}

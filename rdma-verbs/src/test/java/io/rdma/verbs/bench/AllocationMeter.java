package io.rdma.verbs.bench;

import java.lang.management.ManagementFactory;

/**
 * Bytes the current thread allocated on the Java heap between {@link #start()} and
 * {@link #bytes()} ({@code com.sun.management.ThreadMXBean}): what JMH's {@code -prof gc}
 * reports per operation, for a loop that runs outside JMH.
 */
final class AllocationMeter {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private long startBytes;

    AllocationMeter() {
        if (!THREADS.isThreadAllocatedMemorySupported() || !THREADS.isThreadAllocatedMemoryEnabled()) {
            throw new IllegalStateException("this JVM does not measure per-thread allocation");
        }
        // the first reading initialises the measurement; it must not count against the loop
        THREADS.getCurrentThreadAllocatedBytes();
    }

    void start() {
        startBytes = THREADS.getCurrentThreadAllocatedBytes();
    }

    long bytes() {
        return THREADS.getCurrentThreadAllocatedBytes() - startBytes;
    }
}

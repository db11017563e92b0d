package io.rdma.boot.autoconfigure.resource;

import io.rdma.boot.autoconfigure.resource.DevicePlan.MemoryPoolPlan;
import io.rdma.verbs.api.ProtectionDomain;

import com.sun.management.OperatingSystemMXBean;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What the declared memory pools cost, counted as the plan reads them, against what this JVM
 * and machine have: each pool's registered memory is pinned in physical memory, and each of its
 * buffers is also a few objects on the heap, for as long as the application runs. A configuration
 * whose pools cannot fit fails here, naming the pool's property, instead of starting into a GC
 * spiral or a machine that swaps everything else; one whose pools pin more than
 * {@value #PINNED_WARNING_PERCENT}% of physical memory starts with a warning
 * ({@link #pinnedMemoryWarning}).
 *
 * <p>Not thread-safe: the plan reads its pools on one thread.
 */
final class MemoryBudget {

    /**
     * Heap a pool holds per buffer: a {@code PooledBuffer} (16 bytes of header and fields, padded to
     * 24), its {@code MemorySegment} slice (40), and one slot each in the pool's buffer array (a
     * reference), free list ({@code int[]}) and lease flags ({@code AtomicIntegerArray}). Measured
     * on JDK 25 (G1) by creating pools of 10^5 and 10^6 8-byte buffers on the simulated fabric:
     * {@code ThreadMXBean.getCurrentThreadAllocatedBytes} around {@code createMemoryPool}, and the
     * heap used after a full GC, both divided by the count, gave 76 bytes per buffer with
     * compressed references and 88 without (heaps of 32 GiB or more); the larger is counted, so
     * the check holds on any heap. Registration adds nothing per buffer on either provider.
     */
    static final long HEAP_BYTES_PER_BUFFER = 88;
    /**
     * The share of the maximum heap the pools' buffers may hold. They live as long as the
     * application; above half the heap, the collector is left too little room for everything else
     * and runs back to back instead of failing (a 200,000,000-buffer pool on a 16 GiB heap spent
     * 90 s in GC before the JVM died).
     */
    static final int HEAP_PERCENT = 50;
    /** Above this share of physical memory, what the pools pin starts with a warning (it fails above all of it). */
    static final int PINNED_WARNING_PERCENT = 50;

    private final long maxHeapBytes;
    private final long physicalMemoryBytes;
    private final List<String> pools = new ArrayList<>();
    private long heapBytes;
    private long pinnedBytes;

    MemoryBudget(long maxHeapBytes, long physicalMemoryBytes) {
        this.maxHeapBytes = maxHeapBytes;
        this.physicalMemoryBytes = physicalMemoryBytes;
    }

    /** The budget of this JVM ({@code -Xmx}) on this machine (or container: the JDK reads its memory limit). */
    static MemoryBudget ofThisJvm() {
        return new MemoryBudget(Runtime.getRuntime().maxMemory(),
                ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize());
    }

    /**
     * Counts {@code pool}, declared at {@code property}, with those counted before it.
     *
     * @throws InvalidRdmaConfigurationException naming {@code property.count} when the buffers of
     *         the pools so far need more than {@value #HEAP_PERCENT}% of the heap, and {@code property}
     *         when their registrations need more than the physical memory
     */
    void add(MemoryPoolPlan pool, String property) {
        long poolHeap = pool.count() * HEAP_BYTES_PER_BUFFER;
        heapBytes += poolHeap;
        if (heapBytes > maxHeapBytes / 100 * HEAP_PERCENT) {
            throw new InvalidRdmaConfigurationException(property + ".count", "the " + pool.count() + " buffers of"
                    + " memory pool '" + pool.name() + "' hold " + bytes(poolHeap) + " of heap (" + HEAP_BYTES_PER_BUFFER
                    + " bytes each: the buffer object, its memory segment and its free-list and lease slots), the"
                    + " pools declared up to it " + bytes(heapBytes) + " in all, more than " + HEAP_PERCENT + "% of"
                    + " this JVM's maximum heap of " + bytes(maxHeapBytes) + "; the collector would run back to back"
                    + " long before the heap ran out", "Lower count: fewer, larger buffers register the same memory"
                    + " (buffer-size x count) for less heap. Or raise the maximum heap (-Xmx) to at least "
                    + bytes(Math.ceilDiv(heapBytes * 100, HEAP_PERCENT)) + ".");
        }
        long poolPinned = Math.ceilDiv(pool.bytes(), ProtectionDomain.PAGE_SIZE) * ProtectionDomain.PAGE_SIZE;
        pinnedBytes += poolPinned;
        if (pinnedBytes > physicalMemoryBytes) {
            throw new InvalidRdmaConfigurationException(property, "the memory pools declared up to this one need "
                    + bytes(pinnedBytes) + " (this one " + bytes(pool.bytes()) + ": " + pool.count() + " x "
                    + pool.bufferSize() + " bytes), more than this machine's " + bytes(physicalMemoryBytes)
                    + " of physical memory; registered memory is pinned, it cannot be swapped out",
                    "Lower count or buffer-size.");
        }
        pools.add(pool.name());
    }

    /**
     * What to warn of at start when the pools pin more than {@value #PINNED_WARNING_PERCENT}% of
     * physical memory: that memory is taken from everything else on the machine (the page cache,
     * other processes, the JVM's own heap growth) for as long as the application runs.
     */
    Optional<PinnedMemoryWarning> pinnedMemoryWarning() {
        if (pinnedBytes <= physicalMemoryBytes / 100 * PINNED_WARNING_PERCENT) {
            return Optional.empty();
        }
        return Optional.of(new PinnedMemoryWarning(List.copyOf(pools), pinnedBytes, physicalMemoryBytes));
    }

    /** {@code 1.5 GiB}, {@code 512.0 MiB}, {@code 88.0 KiB}, {@code 100 bytes}. */
    static String bytes(long bytes) {
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        if (bytes < 1024) {
            return bytes + " bytes";
        }
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }

    /**
     * The memory pools' registrations pin {@code pinnedBytes}, more than
     * {@value #PINNED_WARNING_PERCENT}% of the machine's {@code physicalMemoryBytes}.
     *
     * @param pools the pools, by name
     */
    record PinnedMemoryWarning(List<String> pools, long pinnedBytes, long physicalMemoryBytes) {

        String message() {
            return "The RDMA memory pools " + pools + " register and pin " + bytes(pinnedBytes) + ", "
                    + Math.round(100.0 * pinnedBytes / physicalMemoryBytes) + "% of this machine's "
                    + bytes(physicalMemoryBytes) + " of physical memory (more than " + PINNED_WARNING_PERCENT
                    + "%): pinned memory cannot be swapped out, so everything else on the machine, this JVM's heap"
                    + " included, makes do with the rest. Lower the pools' count or buffer-size unless the machine"
                    + " is sized for it.";
        }
    }
}

package io.rdma.verbs.api;

import io.rdma.verbs.spi.MrHandle;
import io.rdma.verbs.spi.PdHandle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * One registered, page-aligned region sliced into {@code count} buffers of {@code bufferSize}
 * bytes. {@link #lease()} and {@link PooledBuffer#close()} are lock-free (a Treiber stack
 * of buffer indexes with an ABA tag) and allocate nothing, so they belong on the data path.
 *
 * <p>Nothing depends on a pool, so closing it deregisters and frees its memory at once, leased
 * buffers included: their segments then refuse access ({@link IllegalStateException}), so close
 * a pool once its buffers' WRs have completed (verbs manual §4.2).
 *
 * <p>Thread-safe: leasing and returning are lock-free and safe from any thread.
 */
public final class MemoryPool extends VerbsResource {

    private static final int EMPTY = -1;

    private final Arena arena;
    private final MemorySegment memory;
    private final MrHandle region;
    private final Set<AccessFlag> access;
    private final int bufferSize;
    private final PooledBuffer[] buffers;
    private final int[] nextFree;
    /** Packed stack top: high 32 bits an ABA tag, low 32 bits the top index + 1 (0 = empty). */
    private final AtomicLong top = new AtomicLong();
    private final AtomicIntegerArray leased;

    private MemoryPool(ProtectionDomain pd, Arena arena, MemorySegment memory, MrHandle region,
                       Set<AccessFlag> access, int bufferSize, int count) {
        super(ResourceKind.MEMORY_POOL, pd.context(), region, List.of(pd));
        this.arena = arena;
        this.memory = memory;
        this.region = region;
        this.access = Set.copyOf(access);
        this.bufferSize = bufferSize;
        this.buffers = new PooledBuffer[count];
        this.nextFree = new int[count];
        this.leased = new AtomicIntegerArray(count);
        for (int i = 0; i < count; i++) {
            buffers[i] = new PooledBuffer(this, i, memory.asSlice((long) i * bufferSize, bufferSize));
            nextFree[i] = i + 1 < count ? i + 1 : EMPTY;
        }
        top.set(1);
    }

    static MemoryPool allocate(ProtectionDomain pd, PdHandle pdHandle, int bufferSize, int count,
                               Set<AccessFlag> access) {
        if (bufferSize <= 0 || count <= 0) {
            throw new VerbsException("ibv_reg_mr", Errno.EINVAL, "a memory pool needs a positive buffer size and count,"
                    + " not " + bufferSize + " x " + count, null);
        }
        Arena arena = Arena.ofShared();
        try {
            MemorySegment memory = arena.allocate((long) bufferSize * count, ProtectionDomain.PAGE_SIZE);
            MrHandle region = pdHandle.registerMemory(memory, AccessFlag.mask(access));
            return new MemoryPool(pd, arena, memory, region, access, bufferSize, count);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * A free buffer, or {@code null} when all are leased.
     *
     * @throws ResourceClosedException when the pool is closed
     */
    public @Nullable PooledBuffer tryLease() {
        ensureOpen();
        while (true) {
            long current = top.get();
            int index = (int) current - 1;
            if (index == EMPTY) {
                return null;
            }
            long next = ((current >>> 32) + 1) << 32 | (nextFree[index] + 1L);
            if (top.compareAndSet(current, next)) {
                leased.set(index, 1);
                return buffers[index];
            }
        }
    }

    /**
     * A free buffer.
     *
     * @throws VerbsException ENOMEM, naming the pool size, when all are leased
     * @throws ResourceClosedException when the pool is closed
     */
    public PooledBuffer lease() {
        PooledBuffer buffer = tryLease();
        if (buffer == null) {
            throw new VerbsException("memory pool lease", Errno.ENOMEM, "all " + buffers.length + " buffers of "
                    + bufferSize + " bytes are leased", "return buffers after their completions, or size the pool larger");
        }
        return buffer;
    }

    void release(PooledBuffer buffer) {
        int index = buffer.index();
        if (!leased.compareAndSet(index, 1, 0)) {
            throw new IllegalStateException("buffer " + index + " of " + this + " was returned twice");
        }
        while (true) {
            long current = top.get();
            nextFree[index] = (int) current - 1;
            long next = ((current >>> 32) + 1) << 32 | (index + 1L);
            if (top.compareAndSet(current, next)) {
                return;
            }
        }
    }

    public int bufferSize() {
        return bufferSize;
    }

    public int capacity() {
        return buffers.length;
    }

    /** Buffers currently leased (a scan; for metrics, not the data path). */
    public int leasedCount() {
        int count = 0;
        for (int i = 0; i < buffers.length; i++) {
            count += leased.get(i);
        }
        return count;
    }

    public int lkey() {
        return region.lkey();
    }

    public int rkey() {
        return region.rkey();
    }

    public Set<AccessFlag> access() {
        return access;
    }

    /** The whole pool's memory, e.g. to advertise it for remote access. */
    public RemoteBuffer remote() {
        return new RemoteBuffer(memory.address(), region.rkey(), memory.byteSize());
    }

    /**
     * The buffer at {@code index}, for mapping a completion's wr_id back to its buffer.
     *
     * @throws ArrayIndexOutOfBoundsException when {@code index} is not below {@link #capacity()}
     */
    public PooledBuffer buffer(int index) {
        return buffers[index];
    }


    @Override
    void destroyHandle() {
        region.destroy();
        arena.close();
    }

    @Override
    String describe() {
        return "memory pool of " + buffers.length + " x " + bufferSize + " bytes on " + context().deviceName();
    }
}

package io.rdma.verbs.api;

import java.lang.foreign.MemorySegment;

/**
 * One buffer of a {@link MemoryPool}; {@link #close()} returns it.
 *
 * <p>Thread-safe: its accessors read fields fixed at creation, and returning it is safe from any
 * thread, once; its memory belongs to its lessee until returned.
 */
public final class PooledBuffer implements RegisteredMemory, AutoCloseable {

    private final MemoryPool pool;
    private final int index;
    private final MemorySegment segment;

    PooledBuffer(MemoryPool pool, int index, MemorySegment segment) {
        this.pool = pool;
        this.index = index;
        this.segment = segment;
    }

    public MemorySegment segment() {
        return segment;
    }

    public long address() {
        return segment.address();
    }

    public int capacity() {
        return (int) segment.byteSize();
    }

    public int lkey() {
        return pool.lkey();
    }

    public int rkey() {
        return pool.rkey();
    }

    /** The buffer's position in its pool: a natural wr_id. */
    public int index() {
        return index;
    }

    public MemoryPool pool() {
        return pool;
    }

    public RemoteBuffer remote() {
        return new RemoteBuffer(address(), rkey(), capacity());
    }

    /**
     * Returns the buffer to its pool.
     *
     * @throws IllegalStateException when the buffer was already returned
     */
    @Override
    public void close() {
        pool.release(this);
    }
}

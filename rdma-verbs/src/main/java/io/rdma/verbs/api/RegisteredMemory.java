package io.rdma.verbs.api;

import java.lang.foreign.MemorySegment;

/**
 * Memory a work request's scatter/gather entry may name: registered with a protection domain,
 * so it has an lkey. A {@link MemoryRegion} or one {@link PooledBuffer} of a pool; both are
 * thread-safe.
 */
public sealed interface RegisteredMemory permits MemoryRegion, PooledBuffer {

    /** The memory; an entry keeps it, so a provider that copies the bytes reads them safely. */
    MemorySegment segment();

    /** The lkey that names the registration to the device. */
    int lkey();
}

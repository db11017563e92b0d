package io.rdma.verbs.api;

import io.rdma.verbs.spi.MrHandle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_mr} (verbs manual §4.1): registered memory, its keys and access rights.
 *
 * <p>Nothing depends on a region, so closing it only deregisters it (and frees memory it
 * allocated). It does not wait for WRs that still name its keys: the verbs manual (§4.2) makes
 * deregistering under them undefined, so close a region only once their completions are polled.
 *
 * <p>Thread-safe: immutable apart from its close.
 */
public final class MemoryRegion extends VerbsResource implements RegisteredMemory {

    private final MemorySegment memory;
    private final Set<AccessFlag> access;
    private final @Nullable Arena ownedMemory;
    private final MrHandle handle;

    MemoryRegion(ProtectionDomain pd, MemorySegment memory, Set<AccessFlag> access, @Nullable Arena ownedMemory,
                 MrHandle handle) {
        super(ResourceKind.MEMORY_REGION, pd.context(), handle, List.of(pd));
        this.memory = memory;
        this.access = Set.copyOf(access);
        this.ownedMemory = ownedMemory;
        this.handle = handle;
    }

    /**
     * The registered memory. Valid while the region is open.
     *
     * @throws ResourceClosedException when the region is closed
     */
    public MemorySegment segment() {
        ensureOpen();
        return memory;
    }

    public long address() {
        return memory.address();
    }

    public long length() {
        return memory.byteSize();
    }

    public int lkey() {
        return handle.lkey();
    }

    public int rkey() {
        return handle.rkey();
    }

    public Set<AccessFlag> access() {
        return access;
    }

    /**
     * What a peer needs to read or write {@code length} bytes at {@code offset} of this region.
     *
     * @throws IndexOutOfBoundsException when the bytes are not all inside the region
     */
    public RemoteBuffer remote(long offset, long length) {
        if (offset < 0 || length < 0 || offset + length > memory.byteSize()) {
            throw new IndexOutOfBoundsException("bytes " + offset + ".." + (offset + length)
                    + " are outside a region of " + memory.byteSize());
        }
        return new RemoteBuffer(address() + offset, rkey(), length);
    }

    public RemoteBuffer remote() {
        return remote(0, memory.byteSize());
    }


    @Override
    void destroyHandle() {
        handle.destroy();
        if (ownedMemory != null) {
            ownedMemory.close();
        }
    }

    @Override
    String describe() {
        return "memory region of " + memory.byteSize() + " bytes (lkey 0x" + Integer.toHexString(handle.lkey())
                + ") on " + context().deviceName();
    }
}

package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.spi.MrHandle;

import java.lang.foreign.MemorySegment;

import org.jspecify.annotations.Nullable;

/**
 * A registered region. One key serves as lkey and rkey: the table index in the high 24 bits
 * and a check byte, so a key that was never issued (or belongs to a closed region) finds
 * nothing.
 */
final class SimulatedMr implements MrHandle {

    private final SimulatedPd pd;
    private final MemorySegment memory;
    private final long address;
    private final long length;
    private final int accessMask;
    private final int id;
    private final int key;

    SimulatedMr(SimulatedPd pd, MemorySegment memory, int accessMask) {
        this.pd = pd;
        this.memory = memory;
        this.address = memory.address();
        this.length = memory.byteSize();
        this.accessMask = accessMask;
        this.id = pd.device().fabric().memoryRegions().add(this);
        this.key = (id << 8) | ((id * 0x9E) & 0xFF);
    }

    /** The region {@code key} names, or null. */
    static @Nullable SimulatedMr byKey(SimulatedFabric fabric, int key) {
        SimulatedMr region = fabric.memoryRegions().get(key >>> 8);
        return region != null && region.key == key ? region : null;
    }

    /** Whether {@code [address, address + bytes)} lies inside this region. */
    boolean covers(long start, long bytes) {
        return start >= address && bytes >= 0 && start - address <= length - bytes;
    }

    boolean allows(AccessFlag flag) {
        return AccessFlag.isSet(accessMask, flag);
    }

    SimulatedPd pd() {
        return pd;
    }

    MemorySegment memory() {
        return memory;
    }

    long offsetOf(long start) {
        return start - address;
    }

    @Override
    public int lkey() {
        return key;
    }

    @Override
    public int rkey() {
        return key;
    }

    @Override
    public void destroy() {
        pd.device().fabric().memoryRegions().remove(id);
        pd.device().release(ResourceKind.MEMORY_REGION);
    }
}

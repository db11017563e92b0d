package io.rdma.sample;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/** A bucket as one RDMA READ of it returned it: its lock word and its slots' entries. */
record KvBucket(long lockWord, List<KvSlot> slots) {

    /**
     * The bucket in {@code image}, or null when one of its slots was read while being written.
     * Every slot must check out, not only the key's: a torn key would hide the entry sought.
     */
    static @Nullable KvBucket decode(byte[] image, KvStoreLayout layout) {
        MemorySegment bucket = MemorySegment.ofArray(image);
        List<KvSlot> slots = new ArrayList<>(layout.slotsPerBucket());
        for (int slot = 0; slot < layout.slotsPerBucket(); slot++) {
            KvSlot entry = KvSlot.decode(bucket.asSlice(layout.slotOffset(slot), layout.slotSize()));
            if (entry == null) {
                return null;
            }
            slots.add(entry);
        }
        return new KvBucket(bucket.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), slots);
    }

    /** Whether a writer held the bucket when it was read. */
    boolean isLocked() {
        return isLocked(lockWord);
    }

    /** Whether lock word {@code word} says a writer holds its bucket (odd). */
    static boolean isLocked(long word) {
        return (word & 1) != 0;
    }

    /** The lock word of a bucket's image, whether its slots check out or not. */
    static long lockWordOf(byte[] image) {
        return MemorySegment.ofArray(image).get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
    }

    /** The slots of {@code image} that do not check out: written half-way. */
    static List<Integer> tornSlots(byte[] image, KvStoreLayout layout) {
        MemorySegment bucket = MemorySegment.ofArray(image);
        List<Integer> torn = new ArrayList<>();
        for (int slot = 0; slot < layout.slotsPerBucket(); slot++) {
            if (KvSlot.decode(bucket.asSlice(layout.slotOffset(slot), layout.slotSize())) == null) {
                torn.add(slot);
            }
        }
        return torn;
    }

    /** The slot holding {@code key}, or -1. */
    int slotOf(String key) {
        for (int slot = 0; slot < slots.size(); slot++) {
            if (slots.get(slot).key().equals(key)) {
                return slot;
            }
        }
        return -1;
    }

    /** The slot holding {@code key}, else the first empty one, else -1: the bucket is full. */
    int slotFor(String key) {
        int holding = slotOf(key);
        return holding >= 0 ? holding : slotOf(KvSlot.EMPTY.key());
    }
}

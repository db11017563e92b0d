package io.rdma.verbs.api;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * The {@code ibv_sge} array of a work request: address, length and lkey per entry, held in
 * arrays sized once, so refilling a request allocates nothing. An entry built from a segment
 * (a region, a pooled buffer, inline data) also keeps that segment and the offset in it, so a
 * provider that copies the bytes itself reads them through the segment: a closed scope is then
 * an exception, never a read of freed memory.
 */
final class ScatterGatherList {

    private final long[] addresses;
    private final int[] lengths;
    private final int[] lkeys;
    private final @Nullable MemorySegment[] segments;
    private final long[] offsets;
    private final String owner;
    private int count;

    /** {@code owner} names the request type in the error that says how to get more room. */
    ScatterGatherList(int capacity, String owner) {
        this.owner = owner;
        addresses = new long[capacity];
        lengths = new int[capacity];
        lkeys = new int[capacity];
        segments = new MemorySegment[capacity];
        offsets = new long[capacity];
    }

    void clear() {
        Arrays.fill(segments, 0, count, null);
        count = 0;
    }

    /** An entry of {@code length} bytes at {@code offset} of {@code segment}. */
    void add(MemorySegment segment, long offset, int length, int lkey) {
        add(segment.address() + offset, length, lkey);
        segments[count - 1] = segment;
        offsets[count - 1] = offset;
    }

    void add(long address, int length, int lkey) {
        if (count == addresses.length) {
            throw new IllegalStateException("this work request holds at most " + addresses.length
                    + " scatter/gather entries; create it with new " + owner + "(maxSge)");
        }
        addresses[count] = address;
        segments[count] = null;
        lengths[count] = length;
        lkeys[count] = lkey;
        count++;
    }

    int count() {
        return count;
    }

    long address(int index) {
        return addresses[index];
    }

    int length(int index) {
        return lengths[index];
    }

    int lkey(int index) {
        return lkeys[index];
    }

    /** The segment the entry was built from, or null for one given as a bare address. */
    @Nullable MemorySegment segment(int index) {
        return segments[index];
    }

    long offset(int index) {
        return offsets[index];
    }

    long totalLength() {
        long total = 0;
        for (int i = 0; i < count; i++) {
            total += Integer.toUnsignedLong(lengths[i]);
        }
        return total;
    }
}

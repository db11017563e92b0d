package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;

import java.lang.foreign.MemorySegment;

import org.jspecify.annotations.Nullable;

/**
 * Send WRs posted and not yet executed, copied into a ring of primitive arrays (inline data
 * included, since the caller may reuse its buffer as soon as the post returns). Most WRs
 * leave the ring within their own post; those waiting on RNR or an ACK timeout stay at the
 * head, keeping RC's order. Accessed only under the QP's send lock.
 */
final class PendingSends {

    private final int capacity;
    private final int maxSge;
    private final int maxInline;
    final long[] wrIds;
    final SendOpcode[] opcodes;
    final int[] flags;
    final int[] sgeCounts;
    final long[] sgeAddresses;
    final int[] sgeLengths;
    final int[] sgeLkeys;
    final int[] immediates;
    final long[] remoteAddresses;
    final int[] rkeys;
    final long[] compareAdds;
    final long[] swaps;
    final @Nullable SimulatedAh[] addressHandles;
    final int[] remoteQpNumbers;
    final int[] remoteQkeys;
    final int[] inlineLengths;
    final MemorySegment inlineData;
    final int[] rnrRetriesUsed;
    final int[] transportRetriesUsed;
    /**
     * When the head WR, waiting on RNR or an ACK timeout, is due to be sent again
     * ({@link System#nanoTime}); 0 for a head that has not waited.
     */
    long retryAt;
    private int head;
    private int count;

    PendingSends(int capacity, int maxSge, int maxInline) {
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.maxInline = maxInline;
        wrIds = new long[capacity];
        opcodes = new SendOpcode[capacity];
        flags = new int[capacity];
        sgeCounts = new int[capacity];
        sgeAddresses = new long[capacity * maxSge];
        sgeLengths = new int[capacity * maxSge];
        sgeLkeys = new int[capacity * maxSge];
        immediates = new int[capacity];
        remoteAddresses = new long[capacity];
        rkeys = new int[capacity];
        compareAdds = new long[capacity];
        swaps = new long[capacity];
        addressHandles = new SimulatedAh[capacity];
        remoteQpNumbers = new int[capacity];
        remoteQkeys = new int[capacity];
        inlineLengths = new int[capacity];
        inlineData = MemorySegment.ofArray(new byte[Math.max(1, capacity * maxInline)]);
        rnrRetriesUsed = new int[capacity];
        transportRetriesUsed = new int[capacity];
    }

    boolean isFull() {
        return count == capacity;
    }

    boolean isEmpty() {
        return count == 0;
    }

    int head() {
        return head;
    }

    int sgeIndex(int slot, int sge) {
        return slot * maxSge + sge;
    }

    long inlineOffset(int slot) {
        return (long) slot * maxInline;
    }

    /** Copies {@code wr}; inline payload is read from the caller's memory now. */
    void add(SendWorkRequest wr, @Nullable SimulatedAh addressHandle, boolean inline) {
        int slot = (head + count) % capacity;
        wrIds[slot] = wr.wrId();
        opcodes[slot] = wr.opcode();
        flags[slot] = wr.flagMask();
        sgeCounts[slot] = wr.sgeCount();
        for (int i = 0; i < wr.sgeCount(); i++) {
            sgeAddresses[sgeIndex(slot, i)] = wr.sgeAddress(i);
            sgeLengths[sgeIndex(slot, i)] = wr.sgeLength(i);
            sgeLkeys[sgeIndex(slot, i)] = wr.sgeLkey(i);
        }
        immediates[slot] = wr.immediateData();
        remoteAddresses[slot] = wr.remoteAddress();
        rkeys[slot] = wr.rkey();
        compareAdds[slot] = wr.compareAdd();
        swaps[slot] = wr.swap();
        addressHandles[slot] = addressHandle;
        remoteQpNumbers[slot] = wr.remoteQpNumber();
        remoteQkeys[slot] = wr.remoteQkey();
        rnrRetriesUsed[slot] = 0;
        transportRetriesUsed[slot] = 0;
        inlineLengths[slot] = 0;
        if (inline) {
            long offset = inlineOffset(slot);
            for (int i = 0; i < wr.sgeCount(); i++) {
                // Inline data is not registered memory: it is read through the caller's segment.
                wr.copySge(i, inlineData, offset, "ibv_post_send");
                offset += wr.sgeLength(i);
            }
            inlineLengths[slot] = (int) (offset - inlineOffset(slot));
        }
        count++;
    }

    /** Forgets the newest {@code dropped} WRs, added by a post that then failed without an errno. */
    void removeNewest(int dropped) {
        for (int i = 0; i < dropped; i++) {
            count--;
            addressHandles[(head + count) % capacity] = null;
        }
    }

    void removeHead() {
        retryAt = 0;
        addressHandles[head] = null;
        head = (head + 1) % capacity;
        count--;
    }

    void clear() {
        while (count > 0) {
            removeHead();
        }
        head = 0;
    }
}

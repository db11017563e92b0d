package io.rdma.verbs.provider.simulated;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The head (consumer) and tail (producer) of a ring, each alone on its cache line, so a
 * producer and a consumer on two cores do not invalidate each other's line on every entry.
 * The producer's own bookkeeping (entries written but not yet published, its last view of
 * the head) sits on a third line, which the consumer never reads.
 */
final class RingCursors {

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int HEAD = 8;
    private static final int TAIL = 24;
    private static final int WRITTEN = 40;
    private static final int PRODUCER_VIEW_OF_HEAD = 41;

    private final long[] cursors = new long[56];
    private final int capacity;

    RingCursors(int capacity) {
        this.capacity = capacity;
    }

    int capacity() {
        return capacity;
    }

    long head() {
        return (long) SLOT.getAcquire(cursors, HEAD);
    }

    long tail() {
        return (long) SLOT.getAcquire(cursors, TAIL);
    }

    /** Producer side: entries written so far, published or not. */
    long written() {
        return cursors[WRITTEN];
    }

    /** Producer side: whether one more entry fits after {@code written}. */
    boolean hasRoom(long written) {
        if (written - cursors[PRODUCER_VIEW_OF_HEAD] < capacity) {
            return true;
        }
        cursors[PRODUCER_VIEW_OF_HEAD] = head();
        return written - cursors[PRODUCER_VIEW_OF_HEAD] < capacity;
    }

    /** Producer side: one more entry written, not yet visible to the consumer. */
    void wrote() {
        cursors[WRITTEN]++;
    }

    /** Producer side: makes every written entry visible to the consumer. */
    void publishWritten() {
        SLOT.setRelease(cursors, TAIL, cursors[WRITTEN]);
    }

    /** Consumer side: frees the entries before {@code head}. */
    void release(long head) {
        SLOT.setRelease(cursors, HEAD, head);
    }
}

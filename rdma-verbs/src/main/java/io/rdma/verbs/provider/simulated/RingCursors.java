package io.rdma.verbs.provider.simulated;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The head (consumer) and tail (producer) of a ring, each alone on its cache line, so a
 * producer and a consumer on two cores do not invalidate each other's line on every entry.
 * The producer also keeps its last view of the head and re-reads the shared one only when
 * the ring looks full.
 */
final class RingCursors {

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int HEAD = 8;
    private static final int TAIL = 24;

    private final long[] cursors = new long[32];
    private final int capacity;
    private long producerViewOfHead;

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

    /** Producer side: whether one more entry fits. */
    boolean hasRoom(long tail) {
        if (tail - producerViewOfHead < capacity) {
            return true;
        }
        producerViewOfHead = head();
        return tail - producerViewOfHead < capacity;
    }

    /** Producer side: makes the entries before {@code tail} visible to the consumer. */
    void publish(long tail) {
        SLOT.setRelease(cursors, TAIL, tail);
    }

    /** Consumer side: frees the entries before {@code head}. */
    void release(long head) {
        SLOT.setRelease(cursors, HEAD, head);
    }
}

package io.rdma.verbs.api;

import io.rdma.verbs.spi.PostedSendRing;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Send-queue depth accounting (verbs manual §7.1.6): a WR holds its send-queue slot, signaled or
 * not, until a completion at or after it is polled. Which WRs a completion retires is decided
 * by position in the queue ({@link PostedSendRing}), never by wr_id alone, which may repeat.
 *
 * <p>The accounting lives in the API, above the providers, so every provider refuses a full
 * queue and frees its slots the same way: slots are freed only here, by {@link #retire} (called
 * by {@link CompletionQueue#poll}) and {@link #clear}, which is therefore also where threads
 * waiting for room are woken.
 */
final class SendQueueDepth {

    private final int capacity;
    private final PostedSendRing posted;
    /** Taken by threads waiting for room and by a retirement that has one to wake; never on a path without a waiter. */
    private final ReentrantLock roomLock = new ReentrantLock();
    private final Condition roomFreed = roomLock.newCondition();
    /**
     * Threads in {@link #awaitFreeSlots}, written under {@link #roomLock}. A waiter writes it
     * before reading the ring's head, a retirement writes the head before reading it; both are
     * volatile, so at least one of them sees the other's write: no wake-up is lost, and a
     * retirement with nobody waiting takes no lock.
     */
    private volatile int waiters;
    private volatile boolean closed;

    SendQueueDepth(int capacity) {
        this.capacity = capacity;
        this.posted = new PostedSendRing(capacity);
    }

    int capacity() {
        return capacity;
    }

    int outstanding() {
        return posted.outstanding();
    }

    /** Slots a chain may take now; read once per post, as the poller frees slots meanwhile. */
    int freeSlots() {
        return capacity - posted.outstanding();
    }

    /** Producer side, before the provider sees the WR, so a completion can never outrun its record. */
    void record(long wrId, boolean signaled) {
        posted.record(wrId, signaled);
    }

    /** Producer side: forgets the newest {@code count} records, for WRs the provider did not post. */
    void unrecord(int count) {
        posted.unrecord(count);
    }

    /** Consumer side: a send completion frees its WR's slot and those of the unsignaled WRs before it. */
    void retire(WorkCompletion completion) {
        long position = posted.completedPosition(completion.wrId(), completion.status().isSuccess());
        if (position >= 0) {
            posted.retireThrough(position);
            wakeWaiters();
        }
    }

    /** A QP back in RESET has an empty send queue. */
    void clear() {
        posted.clear();
        wakeWaiters();
    }

    /** The QP is destroyed: its waiters return, for the QP to tell them it is closed. */
    void close() {
        closed = true;
        wakeWaiters();
    }

    /**
     * Parks until {@code slots} slots are free, {@code timeoutNanos} pass or the queue is closed;
     * true when the slots are free.
     */
    boolean awaitFreeSlots(int slots, long timeoutNanos) throws InterruptedException {
        roomLock.lock();
        waiters++;
        try {
            long remaining = timeoutNanos;
            while (freeSlots() < slots && !closed) {
                if (remaining <= 0) {
                    return false;
                }
                remaining = roomFreed.awaitNanos(remaining);
            }
            return freeSlots() >= slots;
        } finally {
            waiters--;
            roomLock.unlock();
        }
    }

    private void wakeWaiters() {
        if (waiters > 0) {
            roomLock.lock();
            try {
                roomFreed.signalAll();
            } finally {
                roomLock.unlock();
            }
        }
    }
}

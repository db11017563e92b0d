package io.rdma.verbs.api;

import io.rdma.verbs.spi.PostedSendRing;

/**
 * Send-queue depth accounting (manual §7.1.6): a WR holds its send-queue slot, signaled or
 * not, until a completion at or after it is polled. Which WRs a completion retires is decided
 * by position in the queue ({@link PostedSendRing}), never by wr_id alone, which may repeat.
 */
final class SendQueueDepth {

    private final int capacity;
    private final PostedSendRing posted;

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
        }
    }

    /** A QP back in RESET has an empty send queue. */
    void clear() {
        posted.clear();
    }
}

package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.VerbsException;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * Posted receive WRs, copied into a ring of primitive arrays: a QP's own receive queue or
 * an SRQ's. Requesters that met an empty queue (RNR) register here and are resumed when a
 * receive is posted. For an SRQ, dropping below the armed limit raises
 * {@code IBV_EVENT_SRQ_LIMIT_REACHED} once.
 */
final class ReceiveQueue {

    private final ReentrantLock lock = new DataPathLock();
    private final int capacity;
    private final int maxSge;
    /**
     * Per WR, side by side, so a WR crosses between cores in as few cache lines as possible:
     * wr_id, SGE count, then (address, length | lkey << 32) per SGE.
     */
    private final long[] slots;
    private final int stride;
    private final Set<SimulatedQp> waitingRequesters = ConcurrentHashMap.newKeySet();
    private final @Nullable SimulatedSrq srq;
    private int head;
    private int count;
    private int limit;

    ReceiveQueue(int capacity, int maxSge, @Nullable SimulatedSrq srq, int limit) {
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.srq = srq;
        this.limit = limit;
        stride = 2 + 2 * maxSge;
        slots = new long[capacity * stride];
    }

    ReentrantLock lock() {
        return lock;
    }

    /**
     * Appends the chain and wakes RNR-blocked requesters. Returns null when the whole chain was
     * taken, or the refusal (EINVAL, ENOMEM) of the first WR that was not ({@code bad_wr},
     * counting the WRs posted before it, which stay posted as libibverbs posts them), for the
     * caller to throw.
     */
    @Nullable VerbsException post(ReceiveWorkRequest first, String verb) {
        int posted = 0;
        VerbsException refused = null;
        lock.lock();
        try {
            for (ReceiveWorkRequest wr = first; wr != null && refused == null; wr = wr.next()) {
                if (wr.sgeCount() > maxSge) {
                    refused = new VerbsException(verb, Errno.EINVAL, wr.sgeCount() + " SGEs exceed max_recv_sge "
                            + maxSge, null).withBadWorkRequest(wr.wrId(), posted);
                } else if (count == capacity) {
                    refused = new VerbsException(verb, Errno.ENOMEM, "the receive queue holds its maximum of "
                            + capacity + " WRs", "repost receives as their completions are polled, or size the queue "
                            + "larger").withBadWorkRequest(wr.wrId(), posted);
                } else {
                    append(wr);
                    posted++;
                }
            }
        } finally {
            lock.unlock();
        }
        resumeWaiting();
        return refused;
    }

    private void append(ReceiveWorkRequest wr) {
        int base = (head + count) % capacity * stride;
        slots[base] = wr.wrId();
        slots[base + 1] = wr.sgeCount();
        for (int i = 0; i < wr.sgeCount(); i++) {
            slots[base + 2 + 2 * i] = wr.sgeAddress(i);
            slots[base + 3 + 2 * i] = (wr.sgeLength(i) & 0xFFFF_FFFFL) | ((long) wr.sgeLkey(i) << 32);
        }
        count++;
    }

    private void resumeWaiting() {
        if (waitingRequesters.isEmpty()) {
            return; // the common case: no requester met RNR, and iterating would allocate
        }
        for (SimulatedQp requester : waitingRequesters) {
            waitingRequesters.remove(requester);
            requester.resumeSends();
        }
    }

    void awaitReceive(SimulatedQp requester) {
        waitingRequesters.add(requester);
    }

    void forget(SimulatedQp requester) {
        waitingRequesters.remove(requester);
    }

    // The accessors below are called with the lock held.

    boolean isEmpty() {
        return count == 0;
    }

    long headWrId() {
        return slots[head * stride];
    }

    int headSgeCount() {
        return (int) slots[head * stride + 1];
    }

    long headSgeAddress(int index) {
        return slots[head * stride + 2 + 2 * index];
    }

    int headSgeLength(int index) {
        return (int) slots[head * stride + 3 + 2 * index];
    }

    int headSgeLkey(int index) {
        return (int) (slots[head * stride + 3 + 2 * index] >>> 32);
    }

    long headCapacity() {
        long total = 0;
        for (int i = 0; i < headSgeCount(); i++) {
            total += Integer.toUnsignedLong(headSgeLength(i));
        }
        return total;
    }

    /** Consumes the head WR; for an SRQ, fires the limit event when the queue drops below the armed limit. */
    void consumeHead() {
        head = (head + 1) % capacity;
        count--;
        if (srq != null && limit > 0 && count < limit) {
            limit = 0;
            srq.limitReached();
        }
    }

    void armLimit(int value) {
        lock.lock();
        try {
            limit = value;
        } finally {
            lock.unlock();
        }
    }

    int limit() {
        return limit;
    }

    int capacity() {
        return capacity;
    }

    int maxSge() {
        return maxSge;
    }

    /** Drops every WR without completions (QP to RESET). */
    void clear() {
        lock.lock();
        try {
            head = 0;
            count = 0;
        } finally {
            lock.unlock();
        }
    }
}

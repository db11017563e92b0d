package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.VerbsException;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Posted receive WRs, copied into a ring of primitive arrays: a QP's own receive queue or
 * an SRQ's. Requesters that met an empty queue (RNR) register here and are resumed when a
 * receive is posted. For an SRQ, dropping below the armed limit raises
 * {@code IBV_EVENT_SRQ_LIMIT_REACHED} once.
 */
final class ReceiveQueue {

    private final ReentrantLock lock = new ReentrantLock();
    private final int capacity;
    private final int maxSge;
    private final long[] wrIds;
    private final int[] sgeCounts;
    private final long[] sgeAddresses;
    private final int[] sgeLengths;
    private final int[] sgeLkeys;
    private final Set<SimulatedQp> waitingRequesters = ConcurrentHashMap.newKeySet();
    private final SimulatedSrq srq;
    private int head;
    private int count;
    private int limit;

    ReceiveQueue(int capacity, int maxSge, SimulatedSrq srq, int limit) {
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.srq = srq;
        this.limit = limit;
        wrIds = new long[capacity];
        sgeCounts = new int[capacity];
        sgeAddresses = new long[capacity * maxSge];
        sgeLengths = new int[capacity * maxSge];
        sgeLkeys = new int[capacity * maxSge];
    }

    ReentrantLock lock() {
        return lock;
    }

    /** Appends the chain; EINVAL / ENOMEM name the first WR not posted. Wakes RNR-blocked requesters. */
    void post(ReceiveWorkRequest first, String verb) {
        lock.lock();
        try {
            for (ReceiveWorkRequest wr = first; wr != null; wr = wr.next()) {
                if (wr.sgeCount() > maxSge) {
                    throw new VerbsException(verb, Errno.EINVAL, wr.sgeCount() + " SGEs exceed max_recv_sge "
                            + maxSge, null).withBadWorkRequest(wr.wrId());
                }
                if (count == capacity) {
                    throw new VerbsException(verb, Errno.ENOMEM, "the receive queue holds its maximum of " + capacity
                            + " WRs", "repost receives as their completions are polled, or size the queue larger")
                            .withBadWorkRequest(wr.wrId());
                }
                int slot = (head + count) % capacity;
                wrIds[slot] = wr.wrId();
                sgeCounts[slot] = wr.sgeCount();
                for (int i = 0; i < wr.sgeCount(); i++) {
                    sgeAddresses[slot * maxSge + i] = wr.sgeAddress(i);
                    sgeLengths[slot * maxSge + i] = wr.sgeLength(i);
                    sgeLkeys[slot * maxSge + i] = wr.sgeLkey(i);
                }
                count++;
            }
        } finally {
            lock.unlock();
        }
        resumeWaiting();
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

    int size() {
        return count;
    }

    long headWrId() {
        return wrIds[head];
    }

    int headSgeCount() {
        return sgeCounts[head];
    }

    long headSgeAddress(int index) {
        return sgeAddresses[head * maxSge + index];
    }

    int headSgeLength(int index) {
        return sgeLengths[head * maxSge + index];
    }

    int headSgeLkey(int index) {
        return sgeLkeys[head * maxSge + index];
    }

    long headCapacity() {
        long total = 0;
        for (int i = 0; i < sgeCounts[head]; i++) {
            total += Integer.toUnsignedLong(sgeLengths[head * maxSge + i]);
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

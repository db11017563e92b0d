package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;

import static io.rdma.verbs.provider.ibverbs.DataPathLayout.RECV_WR_ID;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.RECV_WR_NEXT;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.RECV_WR_NUM_SGE;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.RECV_WR_SG_LIST;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.RECV_WR_SIZE;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SGE_SIZE;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.writeSge;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A receive queue's (QP or SRQ) preallocated native {@code ibv_recv_wr} chain and SGE lists,
 * filled from the API's {@link ReceiveWorkRequest} chain at each post (under the queue's
 * receive lock), and the queue's depth: receives posted and not yet completed. Devices may
 * size their rings above what they grant (rxe rounds up to a power of two), so the granted
 * {@code max_recv_wr} / {@code max_wr} is enforced here, with ENOMEM as the man page says.
 */
final class ReceiveRequestArray {

    private final String verb;
    private final int capacity;
    private final int maxSge;
    private final MemorySegment requests;
    private final MemorySegment sges;
    private final MemorySegment badRequest;
    private final AtomicInteger outstanding = new AtomicInteger();

    ReceiveRequestArray(String verb, Arena arena, int capacity, int maxSge) {
        this.verb = verb;
        this.capacity = Math.max(1, capacity);
        this.maxSge = maxSge;
        this.requests = arena.allocate(RECV_WR_SIZE * this.capacity, 8);
        this.sges = arena.allocate(SGE_SIZE * this.capacity * Math.max(1, maxSge), 8);
        this.badRequest = arena.allocate(ValueLayout.ADDRESS);
    }

    MemorySegment head() {
        return requests;
    }

    MemorySegment badRequestSlot() {
        return badRequest;
    }

    int fill(ReceiveWorkRequest first) {
        int index = 0;
        int room = capacity - outstanding.get();
        for (ReceiveWorkRequest wr = first; wr != null; wr = wr.next(), index++) {
            if (index == room) {
                throw new VerbsException(verb, Errno.ENOMEM, "the receive queue holds " + capacity + " WRs and "
                        + outstanding.get() + " are outstanding", "poll the receive CQ, or create the queue larger")
                        .withBadWorkRequest(wr.wrId());
            }
            if (wr.sgeCount() > maxSge) {
                throw new VerbsException(verb, Errno.EINVAL, "a WR has " + wr.sgeCount()
                        + " scatter/gather entries, the queue takes " + maxSge, "create it with more receive SGEs")
                        .withBadWorkRequest(wr.wrId());
            }
            long at = index * RECV_WR_SIZE;
            long sgeAt = (long) index * maxSge * SGE_SIZE;
            requests.set(JAVA_LONG, at + RECV_WR_ID, wr.wrId());
            requests.set(JAVA_LONG, at + RECV_WR_NEXT, wr.next() == null ? 0 : requests.address() + at + RECV_WR_SIZE);
            requests.set(JAVA_LONG, at + RECV_WR_SG_LIST, wr.sgeCount() == 0 ? 0 : sges.address() + sgeAt);
            requests.set(JAVA_INT, at + RECV_WR_NUM_SGE, wr.sgeCount());
            for (int i = 0; i < wr.sgeCount(); i++) {
                writeSge(sges, sgeAt + i * SGE_SIZE, wr.sgeAddress(i), wr.sgeLength(i), wr.sgeLkey(i));
            }
        }
        return index;
    }

    /** The first {@code count} WRs of the last fill are on the queue now. */
    void posted(int count) {
        outstanding.addAndGet(count);
    }

    /** A receive of this queue completed (or was flushed). */
    void completed() {
        outstanding.decrementAndGet();
    }

    /** A QP back in RESET has an empty receive queue. */
    void clear() {
        outstanding.set(0);
    }

    /** The failure of a post that returned {@code errno}, naming the first WR not posted, whose predecessors were. */
    VerbsException failure(int errno, ReceiveWorkRequest first, String detail) {
        long bad = badRequest.get(ValueLayout.ADDRESS, 0).address();
        int index = bad == 0 ? 0 : (int) ((bad - requests.address()) / RECV_WR_SIZE);
        posted(index);
        ReceiveWorkRequest wr = first;
        for (int i = 0; i < index && wr.next() != null; i++) {
            wr = wr.next();
        }
        return NativeErrors.failure(verb, errno, detail).withBadWorkRequest(wr.wrId());
    }
}

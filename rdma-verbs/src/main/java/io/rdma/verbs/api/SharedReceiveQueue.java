package io.rdma.verbs.api;

import io.rdma.verbs.spi.SrqHandle;

import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code struct ibv_srq} (verbs manual §8): one pool of receive WRs shared by many QPs. With a
 * limit armed, dropping below it raises {@code IBV_EVENT_SRQ_LIMIT_REACHED} once and disarms.
 *
 * <p>Closing it first closes the QPs that take their receives from it (verbs manual §8.4
 * requires them destroyed first; {@code ibv_destroy_srq} refuses otherwise).
 *
 * <p>Thread-safe: posts and limit changes are serialized.
 */
public final class SharedReceiveQueue extends VerbsResource {

    private final SrqHandle handle;
    private final ReentrantLock postLock = new ReentrantLock();

    SharedReceiveQueue(ProtectionDomain pd, SrqHandle handle) {
        super(ResourceKind.SHARED_RECEIVE_QUEUE, pd.context(), handle, List.of(pd));
        this.handle = handle;
    }

    /**
     * {@code ibv_post_srq_recv}; thread-safe.
     *
     * @throws VerbsException ENOMEM when the SRQ is full; EINVAL when a WR has more SGEs than
     *         {@code max_sge}; the errno the device returns. A failed chain names its first unposted WR.
     * @throws ResourceClosedException when the SRQ is closed
     */
    public void postReceive(ReceiveWorkRequest first) {
        postLock.lock();
        try {
            ensureOpen();
            handle.postReceive(first);
        } finally {
            postLock.unlock();
        }
    }

    /**
     * {@code ibv_modify_srq(IBV_SRQ_LIMIT)}: re-arms the limit event; 0 disarms.
     *
     * @throws VerbsException EINVAL when {@code limit} is outside 0 to the SRQ's capacity
     * @throws ResourceClosedException when the SRQ is closed
     */
    public void armLimit(int limit) {
        postLock.lock();
        try {
            ensureOpen();
            handle.modifyLimit(limit);
        } finally {
            postLock.unlock();
        }
    }

    /**
     * {@code ibv_query_srq}.
     *
     * @throws VerbsException the errno {@code ibv_query_srq} fails with
     * @throws ResourceClosedException when the SRQ is closed
     */
    public SharedReceiveQueueAttributes query() {
        ensureOpen();
        return handle.query();
    }

    SrqHandle srqHandle() {
        return handle;
    }


    @Override
    void destroyHandle() {
        postLock.lock();
        try {
            handle.destroy();
            markClosed();
        } finally {
            postLock.unlock();
        }
    }

    @Override
    String describe() {
        return "shared receive queue on " + context().deviceName();
    }
}

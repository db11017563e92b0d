package io.rdma.verbs.api;

import io.rdma.verbs.spi.SrqHandle;

import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code struct ibv_srq} (verbs manual §8): one pool of receive WRs shared by many QPs. With a
 * limit armed, dropping below it raises {@code IBV_EVENT_SRQ_LIMIT_REACHED} once and disarms.
 */
public final class SharedReceiveQueue extends VerbsResource {

    private final SrqHandle handle;
    private final ReentrantLock postLock = new ReentrantLock();

    SharedReceiveQueue(ProtectionDomain pd, SrqHandle handle) {
        super(ResourceKind.SHARED_RECEIVE_QUEUE, pd.context(), handle, List.of(pd));
        this.handle = handle;
    }

    /** {@code ibv_post_srq_recv}; thread-safe. ENOMEM when the SRQ is full. */
    public void postReceive(ReceiveWorkRequest first) {
        postLock.lock();
        try {
            ensureOpen();
            handle.postReceive(first);
        } finally {
            postLock.unlock();
        }
    }

    /** {@code ibv_modify_srq(IBV_SRQ_LIMIT)}: re-arms the limit event; 0 disarms. */
    public void armLimit(int limit) {
        postLock.lock();
        try {
            ensureOpen();
            handle.modifyLimit(limit);
        } finally {
            postLock.unlock();
        }
    }

    /** {@code ibv_query_srq}. */
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

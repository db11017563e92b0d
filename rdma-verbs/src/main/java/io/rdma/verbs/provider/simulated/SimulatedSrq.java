package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.SharedReceiveQueueAttributes;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.spi.SrqHandle;

/** A shared receive queue: one {@link ReceiveQueue} that several QPs of its PD draw from. */
final class SimulatedSrq implements SrqHandle {

    private final SimulatedPd pd;
    private final ReceiveQueue queue;

    SimulatedSrq(SimulatedPd pd, SharedReceiveQueueAttributes attributes) {
        this.pd = pd;
        this.queue = new ReceiveQueue(attributes.maxWr(), attributes.maxSge(), this, attributes.limit());
    }

    ReceiveQueue queue() {
        return queue;
    }

    SimulatedPd pd() {
        return pd;
    }

    void limitReached() {
        pd.context().raise(AsyncEventType.SRQ_LIMIT_REACHED, this, 0);
    }

    @Override
    public void postReceive(ReceiveWorkRequest first) {
        VerbsException refused = queue.post(first, "ibv_post_srq_recv");
        if (refused != null) {
            throw refused;
        }
    }

    @Override
    public void modifyLimit(int limit) {
        if (limit < 0 || limit > queue.capacity()) {
            throw Failures.invalid("ibv_modify_srq", "srq_limit " + limit + " is outside 0.." + queue.capacity());
        }
        queue.armLimit(limit);
    }

    @Override
    public SharedReceiveQueueAttributes query() {
        queue.lock().lock();
        try {
            return new SharedReceiveQueueAttributes(queue.capacity(), queue.maxSge(), queue.limit());
        } finally {
            queue.lock().unlock();
        }
    }

    @Override
    public void destroy() {
        pd.device().release(ResourceKind.SHARED_RECEIVE_QUEUE);
    }
}

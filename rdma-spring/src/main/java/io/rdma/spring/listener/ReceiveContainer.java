package io.rdma.spring.listener;

import io.rdma.spring.completion.CompletionRouter;
import io.rdma.spring.connection.ConnectedQueuePair;
import io.rdma.spring.connection.ConnectionObserver;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.PooledBuffer;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.WorkCompletion;

import java.lang.foreign.ValueLayout;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Keeps one queue pair's receive queue filled and hands each received message to its listener:
 * receives are posted with the pool buffer's index (and the container's generation) as wr_id; a
 * completion delivers the message to the {@link ListenerInvoker}, either copied out
 * ({@link CopiedDelivery}: the buffer comes back, and this posts it again, when the message's
 * invocation starts) or in its buffer ({@link ReceivedBuffer}: the buffer is lent to the
 * invocation and comes back when it is released). A message that waits for an invocation
 * keeps its buffer out of the receive queue, so a listener that falls behind empties the queue
 * and the sender gets RNR NAKs instead of this side queueing without bound. Flushed receives
 * return their buffers. As the observer of a declared connection it fills the queue each time
 * the connection comes up, and when it goes it returns every buffer it still holds, posted or
 * waiting: a QP reset or destroyed does not complete its posted receives (on Soft-RoCE not even
 * with a flush), and without this the pool would lose a queue's worth of buffers per reconnect
 * or peer.
 */
final class ReceiveContainer implements ConnectionObserver {

    private static final Log logger = LogFactory.getLog(ReceiveContainer.class);

    private final String name;
    private final QueuePair qp;
    private final MemoryPool pool;
    private final int depth;
    private final ListenerInvoker listener;
    private final ReceiveWorkRequest request = new ReceiveWorkRequest();
    /**
     * By pool buffer index: since the last start, posted to the QP and not completed yet, or
     * holding a message that waits for its invocation. Guarded by this.
     */
    private final boolean[] held;
    /**
     * By pool buffer index: delivered as a {@link ReceivedBuffer} and not released yet. A stop
     * leaves these to their invocations, which return them to the pool. Guarded by this.
     */
    private final boolean[] lent;
    /**
     * The high half of every wr_id, advanced by {@link #stop()}: a completion of an earlier
     * generation (a flush arriving after its buffer was returned) is ignored. Guarded by this.
     */
    private int generation;

    /**
     * {@code poolSharers} is how many queue pairs may receive into {@code pool} at once (the
     * peers of a prototype listener), so each takes its share.
     */
    ReceiveContainer(String name, QueuePair qp, MemoryPool pool, int poolSharers, ListenerInvoker listener,
                     CompletionRouter router) {
        this.name = name;
        this.qp = qp;
        this.pool = pool;
        // Half the pool at most, so the template can still lease buffers for sends on the same pool.
        this.depth = Math.max(1, Math.min(qp.capabilities().maxRecvWr(), pool.capacity() / (2 * poolSharers)));
        this.listener = listener;
        this.held = new boolean[pool.capacity()];
        this.lent = new boolean[pool.capacity()];
        router.routeReceives(qp, this::received);
    }

    /** The connection's reset emptied the receive queue, and {@link #disconnected} returned the buffers: fill it again. */
    @Override
    public void connected(ConnectedQueuePair connection) {
        start();
    }

    /** The QP was flushed and is about to be reset or closed: its receives will not complete. */
    @Override
    public void disconnected(ConnectedQueuePair connection) {
        stop();
    }

    /** Fills the receive queue; the QP must be past RESET (connected, or at least INIT). */
    void start() {
        for (int i = 0; i < depth; i++) {
            PooledBuffer buffer = pool.lease();
            synchronized (this) {
                post(buffer);
            }
        }
    }

    /**
     * Returns every buffer it holds to the pool, but those lent to invocations, which go back when
     * released; completions of what was posted before are ignored from now on.
     */
    synchronized void stop() {
        generation++;
        for (int index = 0; index < held.length; index++) {
            if (held[index] && !lent[index]) {
                pool.buffer(index).close();
            }
            held[index] = false;
        }
    }

    /** Posts {@code buffer} under this generation; a buffer that could not be posted goes back to the pool. */
    private void post(PooledBuffer buffer) {
        try {
            qp.postReceive(request.reset().wrId((long) generation << 32 | buffer.index())
                    .addSge(buffer, 0, buffer.capacity()));
            held[buffer.index()] = true;
        } catch (RuntimeException e) {
            held[buffer.index()] = false;
            buffer.close();
            throw e;
        }
    }

    private void received(WorkCompletion completion) {
        Delivery delivery;
        int index = (int) completion.wrId();
        synchronized (this) {
            int receivedIn = (int) (completion.wrId() >>> 32);
            if (receivedIn != generation || !held[index]) {
                return; // posted before the last stop, which returned its buffer
            }
            PooledBuffer buffer = pool.buffer(index);
            if (!completion.isSuccess()) {
                held[index] = false;
                buffer.close();
                return;
            }
            // An RDMA write with immediate data consumes a receive but puts nothing in it: the data
            // went where the writer addressed it, and byte_len is the write's length, not the buffer's.
            int length = completion.opcode() == CompletionOpcode.RECV_RDMA_WITH_IMM ? 0 : (int) completion.byteLength();
            if (listener.lendsBuffers()) {
                lent[index] = true;
                delivery = new ReceivedBuffer(this, name, buffer.segment(), length, completion.hasImmediateData(),
                        completion.immediateData(), index, receivedIn);
            } else {
                delivery = new CopiedDelivery(new ReceivedMessage(name,
                        buffer.segment().asSlice(0, length).toArray(ValueLayout.JAVA_BYTE),
                        completion.hasImmediateData(), completion.immediateData()), this, index, receivedIn);
            }
        }
        listener.deliver(delivery);
    }

    /**
     * The message received into buffer {@code index} is done with it (copied out as its
     * invocation started, or released): the buffer goes back to the receive queue; or to the pool
     * when a stop since {@code receivedIn} left it to its invocation, or already returned it.
     */
    synchronized void returned(int index, int receivedIn) {
        boolean wasLent = lent[index];
        lent[index] = false;
        if (receivedIn != generation) {
            if (wasLent) {
                pool.buffer(index).close();
            }
            return;
        }
        try {
            post(pool.buffer(index));
        } catch (RuntimeException e) {
            logger.warn("Receive buffer " + index + " could not be posted again to queue pair '" + name + "', whose"
                    + " receive queue now holds one buffer fewer; the buffer went back to the pool", e);
        }
    }

    /** A method retained one of this queue pair's buffers: its listener revokes it if it stops first. */
    void retained(ReceivedBuffer.Retained buffer) {
        listener.retained(buffer);
    }

    /** A retained buffer was returned. */
    void forget(ReceivedBuffer.Retained buffer) {
        listener.released(buffer);
    }
}

package io.rdma.boot.autoconfigure.listener;

import io.rdma.boot.autoconfigure.completion.CompletionRouter;
import io.rdma.boot.autoconfigure.connection.ConnectedQueuePair;
import io.rdma.boot.autoconfigure.connection.ConnectionObserver;
import io.rdma.boot.autoconfigure.template.RdmaTemplate;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.PooledBuffer;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.WorkCompletion;

import java.lang.foreign.ValueLayout;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Keeps one queue pair's receive queue filled and hands each received message to its handler:
 * receives are posted with the pool buffer's index (and the container's generation) as wr_id; a
 * completion copies the payload out, posts the same buffer again at once (so the queue never
 * runs dry while a handler runs) and runs the handler on a virtual thread. Flushed receives
 * return their buffers. As the observer of a declared connection it fills the queue each time
 * the connection comes up, and when it goes it returns every buffer still posted: a QP reset or
 * destroyed does not complete its posted receives (on Soft-RoCE not even with a flush), and
 * without this the pool would lose a queue's worth of buffers per reconnect or peer.
 */
final class ReceiveContainer implements ConnectionObserver {

    private static final Log logger = LogFactory.getLog(ReceiveContainer.class);

    private final String name;
    private final QueuePair qp;
    private final MemoryPool pool;
    private final int depth;
    private final Function<ReceivedMessage, byte[]> handler;
    private final RdmaTemplate template;
    private final ExecutorService executor;
    private final ReceiveWorkRequest request = new ReceiveWorkRequest();
    /** By pool buffer index: posted to the QP since the last start, and not completed yet; guarded by this. */
    private final boolean[] posted;
    /**
     * The high half of every wr_id, advanced by {@link #stop()}: a completion of an earlier
     * generation (a flush arriving after its buffer was returned) is ignored. Guarded by this.
     */
    private int generation;

    /**
     * {@code poolSharers} is how many queue pairs may receive into {@code pool} at once (the
     * peers of a template listener), so each takes its share.
     */
    ReceiveContainer(String name, QueuePair qp, MemoryPool pool, int poolSharers,
                     Function<ReceivedMessage, byte[]> handler, RdmaTemplate template, ExecutorService executor,
                     CompletionRouter router) {
        this.name = name;
        this.qp = qp;
        this.pool = pool;
        // Half the pool at most, so the template can still lease buffers for sends on the same pool.
        this.depth = Math.max(1, Math.min(qp.capabilities().maxRecvWr(), pool.capacity() / (2 * poolSharers)));
        this.handler = handler;
        this.template = template;
        this.executor = executor;
        this.posted = new boolean[pool.capacity()];
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

    /** Returns every buffer still posted to the pool; completions of what was posted before are ignored from now on. */
    synchronized void stop() {
        generation++;
        for (int index = 0; index < posted.length; index++) {
            if (posted[index]) {
                posted[index] = false;
                pool.buffer(index).close();
            }
        }
    }

    /** Posts {@code buffer} under this generation; a buffer that could not be posted goes back to the pool. */
    private void post(PooledBuffer buffer) {
        try {
            qp.postReceive(request.wrId((long) generation << 32 | buffer.index()).sge(buffer));
            posted[buffer.index()] = true;
        } catch (RuntimeException e) {
            posted[buffer.index()] = false;
            buffer.close();
            throw e;
        }
    }

    private void received(WorkCompletion completion) {
        ReceivedMessage message;
        synchronized (this) {
            int index = (int) completion.wrId();
            if ((int) (completion.wrId() >>> 32) != generation || !posted[index]) {
                return; // posted before the last stop, which returned its buffer
            }
            PooledBuffer buffer = pool.buffer(index);
            if (!completion.isSuccess()) {
                posted[index] = false;
                buffer.close();
                return;
            }
            message = new ReceivedMessage(name,
                    buffer.segment().asSlice(0, completion.byteLength()).toArray(ValueLayout.JAVA_BYTE),
                    completion.hasImmediateData(), completion.immediateData());
            post(buffer);
        }
        executor.execute(() -> handle(message));
    }

    private void handle(ReceivedMessage message) {
        try {
            byte[] reply = handler.apply(message);
            if (reply != null) {
                (message.hasImmediateData() ? template.send(name, reply, message.immediateData())
                        : template.send(name, reply)).exceptionally(failure -> {
                    logger.warn("Reply on queue pair '" + name + "' failed", failure);
                    return null;
                });
            }
        } catch (RuntimeException e) {
            logger.error("Receive handler of queue pair '" + name + "' failed", e);
        }
    }
}

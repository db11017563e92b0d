package io.rdma.boot.autoconfigure.listener;

import io.rdma.boot.autoconfigure.completion.CompletionRouter;
import io.rdma.boot.autoconfigure.connection.InJvmConnectionManager;
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
 * receives are posted with the pool buffer's index as wr_id; a completion copies the payload
 * out, posts the same buffer again at once (so the queue never runs dry while a handler runs)
 * and runs the handler on a virtual thread. Flushed receives return their buffers.
 */
final class ReceiveContainer {

    private static final Log logger = LogFactory.getLog(ReceiveContainer.class);

    private final String name;
    private final QueuePair qp;
    private final MemoryPool pool;
    private final int depth;
    private final Function<ReceivedMessage, byte[]> handler;
    private final RdmaTemplate template;
    private final ExecutorService executor;
    private final ReceiveWorkRequest request = new ReceiveWorkRequest();

    ReceiveContainer(String name, QueuePair qp, MemoryPool pool, Function<ReceivedMessage, byte[]> handler,
                     RdmaTemplate template, ExecutorService executor, CompletionRouter router,
                     InJvmConnectionManager connections) {
        this.name = name;
        this.qp = qp;
        this.pool = pool;
        // Half the pool at most, so the template can still lease buffers for sends on the same pool.
        this.depth = Math.max(1, Math.min(qp.capabilities().maxRecvWr(), pool.capacity() / 2));
        this.handler = handler;
        this.template = template;
        this.executor = executor;
        router.routeReceives(qp, this::received);
        connections.onConnected(qp, this::start);
    }

    /**
     * Fills the receive queue; the QP must be past RESET (connected, or at least INIT). Runs
     * again after each reconnection, whose flush has returned the buffers posted before.
     */
    void start() {
        for (int i = 0; i < depth; i++) {
            post(pool.lease());
        }
    }

    private void post(PooledBuffer buffer) {
        synchronized (request) {
            qp.postReceive(request.wrId(buffer.index()).sge(buffer));
        }
    }

    private void received(WorkCompletion completion) {
        PooledBuffer buffer = pool.buffer((int) completion.wrId());
        if (!completion.isSuccess()) {
            buffer.close();
            return;
        }
        ReceivedMessage message = new ReceivedMessage(name,
                buffer.segment().asSlice(0, completion.byteLength()).toArray(ValueLayout.JAVA_BYTE),
                completion.hasImmediateData(), completion.immediateData());
        post(buffer);
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

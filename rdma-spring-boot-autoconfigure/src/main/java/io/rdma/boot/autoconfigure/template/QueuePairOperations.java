package io.rdma.boot.autoconfigure.template;

import io.rdma.boot.autoconfigure.completion.CompletionRouter;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.PooledBuffer;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.RemoteBuffer;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.api.WorkCompletion;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The template's state for one QP: a reused work request, the pool its buffers come from, and
 * the operations in flight by wr_id. Every operation is signaled, so each one's completion
 * finds its future here (on the send CQ's poller thread), releases its buffer and completes.
 */
final class QueuePairOperations {

    private static final ValueLayout.OfLong ATOMIC_RESULT = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.nativeOrder());

    private record InFlight(String operation, PooledBuffer buffer, CompletableFuture<Object> result,
                            Function<PooledBuffer, Object> outcome) {
    }

    private final String name;
    private final QueuePair qp;
    private final MemoryPool pool;
    private final SendWorkRequest request = new SendWorkRequest();
    private final AtomicLong nextWrId = new AtomicLong();
    private final Map<Long, InFlight> inFlight = new ConcurrentHashMap<>();

    QueuePairOperations(String name, QueuePair qp, MemoryPool pool, CompletionRouter router) {
        this.name = name;
        this.qp = qp;
        this.pool = pool;
        router.routeSends(qp, this::completed);
    }

    /** Leases a buffer, lets {@code prepare} fill it and the WR, posts, and returns what {@code outcome} makes of the buffer. */
    @SuppressWarnings("unchecked")
    <T> CompletableFuture<T> post(String operation, SendOpcode opcode, int payloadLength,
                                  BiConsumer<PooledBuffer, SendWorkRequest> prepare,
                                  Function<PooledBuffer, T> outcome) {
        PooledBuffer buffer = pool.lease();
        CompletableFuture<Object> result = new CompletableFuture<>();
        long wrId = nextWrId.incrementAndGet();
        inFlight.put(wrId, new InFlight(operation, buffer, result, (Function<PooledBuffer, Object>) outcome));
        try {
            synchronized (request) {
                request.reset().wrId(wrId).opcode(opcode).sge(buffer, payloadLength);
                prepare.accept(buffer, request);
                qp.postSend(request);
            }
        } catch (VerbsException | IllegalArgumentException e) {
            inFlight.remove(wrId);
            buffer.close();
            result.completeExceptionally(e);
        }
        return (CompletableFuture<T>) result;
    }

    CompletableFuture<Void> send(byte[] payload, Integer immediate) {
        return post(immediate == null ? "send" : "send with immediate",
                immediate == null ? SendOpcode.SEND : SendOpcode.SEND_WITH_IMM, payload.length, (buffer, wr) -> {
                    copyIn(buffer, payload);
                    if (immediate != null) {
                        wr.immediateData(immediate);
                    }
                }, buffer -> null);
    }

    CompletableFuture<Void> write(byte[] data, RemoteBuffer target, Integer immediate) {
        return post(immediate == null ? "RDMA write" : "RDMA write with immediate",
                immediate == null ? SendOpcode.RDMA_WRITE : SendOpcode.RDMA_WRITE_WITH_IMM, data.length,
                (buffer, wr) -> {
                    copyIn(buffer, data);
                    wr.remote(target);
                    if (immediate != null) {
                        wr.immediateData(immediate);
                    }
                }, buffer -> null);
    }

    CompletableFuture<byte[]> read(RemoteBuffer source, int length) {
        return post("RDMA read", SendOpcode.RDMA_READ, length, (buffer, wr) -> wr.remote(source),
                buffer -> buffer.segment().asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
    }

    CompletableFuture<Long> atomic(SendOpcode opcode, RemoteBuffer target, long compareOrAdd, long swap) {
        return post(opcode == SendOpcode.ATOMIC_CMP_AND_SWP ? "compare-and-swap" : "fetch-and-add", opcode, Long.BYTES,
                (buffer, wr) -> wr.remote(target).atomic(compareOrAdd, swap),
                buffer -> buffer.segment().get(ATOMIC_RESULT, 0));
    }

    private void copyIn(PooledBuffer buffer, byte[] data) {
        if (data.length > buffer.capacity()) {
            throw new IllegalArgumentException(data.length + " bytes do not fit the " + buffer.capacity()
                    + "-byte buffers of the memory pool of queue pair '" + name + "'");
        }
        buffer.segment().copyFrom(MemorySegment.ofArray(data));
    }

    /**
     * The QP is about to be destroyed: operations still in flight fail as flushed and return
     * their buffers, since a destroyed QP need not complete them (Soft-RoCE does not flush them).
     */
    void abandon() {
        for (Long wrId : inFlight.keySet()) {
            InFlight operation = inFlight.remove(wrId);
            if (operation != null) {
                operation.buffer().close();
                operation.result().completeExceptionally(new RdmaOperationException(operation.operation(), name,
                        CompletionStatus.WR_FLUSH_ERR, 0));
            }
        }
    }

    private void completed(WorkCompletion completion) {
        InFlight operation = inFlight.remove(completion.wrId());
        if (operation == null) {
            return;
        }
        try {
            if (completion.isSuccess()) {
                operation.result().complete(operation.outcome().apply(operation.buffer()));
            } else {
                operation.result().completeExceptionally(new RdmaOperationException(operation.operation(), name,
                        completion.status(), completion.vendorError()));
            }
        } finally {
            operation.buffer().close();
        }
    }
}

package io.rdma.spring.template;

import io.rdma.spring.completion.CompletionRouter;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.RemoteBuffer;
import io.rdma.verbs.api.SendOpcode;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import org.jspecify.annotations.Nullable;

/**
 * The data path without work requests: send, RDMA write and read, compare-and-swap and
 * fetch-and-add on a declared queue pair by name, with immediate data where the verb carries
 * it. Payloads are copied into a buffer leased from the QP's memory pool ({@code memory-pool},
 * or the only pool of its protection domain), or written straight into it
 * ({@link #send(String, int, Consumer)}), and the buffer goes back when the operation
 * completes; results arrive as {@link CompletableFuture}s completed on the CQ's poller thread
 * (chain with {@code *Async} to leave it). Failures complete the future with an
 * {@link RdmaOperationException} (completion status), a {@code VerbsException} (post refused,
 * or no free buffer in the pool) or a {@link SendQueueFullException}.
 *
 * <p>A full send queue is back-pressure, not an error: an operation that finds no room waits,
 * without holding a thread, and is posted, in the order operations were made on that queue pair,
 * as soon as completions free slots. Only when its queue pair's {@code send-timeout} (5 s unless
 * configured) passes first does it fail, with a {@link SendQueueFullException} naming the queue
 * pair, its send queue's depth and the property to raise; that future completes on a thread of
 * {@code CompletableFuture}'s default async pool. The methods never block.
 *
 * <p>Each operation is observed ({@link RdmaTemplateObservation#OPERATION}) from when it is made
 * until its future completes, through the {@link ObservationRegistry} given; with
 * {@link ObservationRegistry#NOOP}, or a registry without handlers, nothing is observed and
 * nothing allocated for it.
 *
 * <p>This is the convenient path: it allocates a future per operation. Code that must not
 * allocate posts reused work requests on the {@link QueuePair} bean itself.
 */
public class RdmaTemplate {

    private final RdmaResources resources;
    private final CompletionRouter router;
    private final ObservationRegistry observationRegistry;
    private final @Nullable RdmaTemplateObservationConvention observationConvention;
    private final Map<String, QueuePairOperations> operations = new ConcurrentHashMap<>();

    /**
     * Observes operations through {@code observationRegistry}, named and tagged by
     * {@code observationConvention}, or when that is null by the registry's global convention or
     * {@link DefaultRdmaTemplateObservationConvention}.
     */
    public RdmaTemplate(RdmaResources resources, CompletionRouter router, ObservationRegistry observationRegistry,
                        @Nullable RdmaTemplateObservationConvention observationConvention) {
        this.resources = resources;
        this.router = router;
        this.observationRegistry = observationRegistry;
        this.observationConvention = observationConvention;
    }

    public CompletableFuture<Void> send(String queuePair, byte[] payload) {
        return post(queuePair, TemplateOperation.send(payload, null));
    }

    public CompletableFuture<Void> send(String queuePair, byte[] payload, int immediateData) {
        return post(queuePair, TemplateOperation.send(payload, immediateData));
    }

    /**
     * Sends {@code length} bytes that {@code writer} writes straight into the registered buffer
     * the send goes out from, leased from the queue pair's pool: no {@code byte[]}, no copy. The
     * writer gets the whole buffer ({@code buffer-size} bytes), whose first {@code length} bytes are
     * sent, when the send is posted: at once, or,
     * when the send queue is full, later, on the thread that finds room (a completion poller, or
     * the send-timeout's timer). So it must only fill the segment, and not keep it: the buffer
     * goes back to the pool when the send completes. What it throws fails the future.
     */
    public CompletableFuture<Void> send(String queuePair, int length, Consumer<MemorySegment> writer) {
        return post(queuePair, TemplateOperation.send(length, writer, null));
    }

    /** {@link #send(String, int, Consumer)} with immediate data. */
    public CompletableFuture<Void> send(String queuePair, int length, Consumer<MemorySegment> writer,
                                        int immediateData) {
        return post(queuePair, TemplateOperation.send(length, writer, immediateData));
    }

    public CompletableFuture<Void> write(String queuePair, byte[] data, RemoteBuffer target) {
        return post(queuePair, TemplateOperation.write(data, target, null));
    }

    public CompletableFuture<Void> write(String queuePair, byte[] data, RemoteBuffer target, int immediateData) {
        return post(queuePair, TemplateOperation.write(data, target, immediateData));
    }

    public CompletableFuture<byte[]> read(String queuePair, RemoteBuffer source, int length) {
        return post(queuePair, TemplateOperation.read(source, length));
    }

    /** Atomically replaces the remote 8 bytes with {@code desired} if they equal {@code expected}; yields the old value. */
    public CompletableFuture<Long> compareAndSwap(String queuePair, RemoteBuffer target, long expected, long desired) {
        return post(queuePair, TemplateOperation.atomic(SendOpcode.ATOMIC_CMP_AND_SWP, target, expected, desired));
    }

    /** Atomically adds {@code delta} to the remote 8 bytes; yields the old value. */
    public CompletableFuture<Long> fetchAndAdd(String queuePair, RemoteBuffer target, long delta) {
        return post(queuePair, TemplateOperation.atomic(SendOpcode.ATOMIC_FETCH_AND_ADD, target, delta, 0));
    }

    /**
     * Makes {@code qp}, which is not a declared bean (a queue pair a listener created for an
     * accepted peer), usable under {@code name} with buffers from {@code pool}. Its operations
     * wait for send-queue room as long as the {@code send-timeout} of {@code createdFrom}, the
     * declared queue pair prototype it was created from, says.
     */
    public void bind(String name, QueuePair qp, MemoryPool pool, String createdFrom) {
        operations.put(name, new QueuePairOperations(name, createdFrom, qp, pool, resources.sendTimeout(createdFrom),
                router));
    }

    /**
     * Forgets a queue pair bound with {@link #bind} before it is closed; what is in flight or
     * waiting for room on it fails.
     */
    public void unbind(String name) {
        QueuePairOperations removed = operations.remove(name);
        if (removed != null) {
            removed.abandon();
        }
    }

    /** Posts {@code made} on {@code queuePair}, observed from now until its future completes. */
    private <T extends @Nullable Object> CompletableFuture<T> post(String queuePair, TemplateOperation made) {
        QueuePairOperations target = on(queuePair);
        if (observationRegistry.isNoop()) {
            return target.post(made); // the hot path without observations: no context, no callback
        }
        RdmaOperationContext context = new RdmaOperationContext(queuePair, target.declaration(), made.opcode());
        Observation observation = RdmaTemplateObservation.OPERATION.start(observationConvention,
                DefaultRdmaTemplateObservationConvention.INSTANCE, () -> context, observationRegistry);
        CompletableFuture<T> result = target.post(made);
        if (!observation.isNoop()) {
            // On the thread that completes the future (a poller, the send-timeout's timer, or this one):
            // no scope is opened, as the operation runs on no thread of the caller's.
            result.whenComplete((value, failure) -> {
                context.complete(failure);
                if (failure != null && !(failure instanceof CancellationException)) {
                    observation.error(failure);
                }
                observation.stop();
            });
        }
        return result;
    }

    private QueuePairOperations on(String queuePair) {
        QueuePairOperations known = operations.get(queuePair);
        // Looked up first: computeIfAbsent's lambda would be allocated on every operation.
        return known != null ? known : operations.computeIfAbsent(queuePair, name -> {
            QueuePair qp = resources.resource(name).filter(managed -> managed.resource() instanceof QueuePair)
                    .map(managed -> (QueuePair) managed.resource())
                    .orElseThrow(() -> new IllegalArgumentException("no queue pair named '" + name + "' is declared"));
            String pool = resources.queuePairAddress(name).memoryPool();
            if (pool == null) {
                throw new IllegalStateException("queue pair '" + name + "' has no memory pool to lease buffers from;"
                        + " set its memory-pool property");
            }
            return new QueuePairOperations(name, name, qp, (MemoryPool) resources.resource(pool).orElseThrow().resource(),
                    resources.sendTimeout(name), router);
        });
    }
}

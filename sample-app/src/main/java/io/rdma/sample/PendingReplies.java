package io.rdma.sample;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Requests sent over RDMA and waiting for their reply, by the correlation id the reply carries
 * back as immediate data. An entry leaves when its reply arrives, when its request could not be
 * sent, or when its timeout passes, whichever comes first: a reply that never comes costs the
 * caller a {@link java.util.concurrent.TimeoutException}, not an entry kept for ever, and a reply
 * that comes after its timeout finds nobody waiting and is dropped.
 */
final class PendingReplies<T> {

    private final Map<Integer, CompletableFuture<T>> pending = new ConcurrentHashMap<>();
    private final Duration timeout;

    PendingReplies(Duration timeout) {
        this.timeout = timeout;
    }

    /**
     * A future for the reply to {@code correlation}, registered before the request is sent so that
     * a fast reply finds it.
     *
     * @throws IllegalStateException when a reply to {@code correlation} is awaited already
     */
    CompletableFuture<T> expect(int correlation) {
        CompletableFuture<T> reply = new CompletableFuture<>();
        if (pending.putIfAbsent(correlation, reply) != null) {
            throw new IllegalStateException("a reply to correlation id " + correlation + " is awaited already");
        }
        // orTimeout completes this same future; every way it completes removes its entry
        reply.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
                .whenComplete((value, failure) -> pending.remove(correlation, reply));
        return reply;
    }

    /** The reply to {@code correlation} arrived; dropped when nobody awaits it (any more). */
    void complete(int correlation, T reply) {
        CompletableFuture<T> waiting = pending.get(correlation);
        if (waiting != null) {
            waiting.complete(reply);
        }
    }

    /** The request of {@code correlation} could not be sent: no reply will come. */
    void fail(int correlation, Throwable failure) {
        CompletableFuture<T> waiting = pending.get(correlation);
        if (waiting != null) {
            waiting.completeExceptionally(failure);
        }
    }

    /** Replies awaited now. */
    int size() {
        return pending.size();
    }
}

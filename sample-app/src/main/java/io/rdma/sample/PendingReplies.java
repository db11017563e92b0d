package io.rdma.sample;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

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
     * Sends a request with {@code send} and answers the reply to {@code correlation}, which is
     * awaited from before the request goes out, so that a fast reply finds it. The future
     * completes after the entry has left, so a caller that sees it complete may reuse the id at once.
     *
     * @throws IllegalStateException when a reply to {@code correlation} is awaited already
     */
    CompletableFuture<T> call(int correlation, Supplier<CompletableFuture<?>> send) {
        CompletableFuture<T> reply = new CompletableFuture<>();
        if (pending.putIfAbsent(correlation, reply) != null) {
            throw new IllegalStateException("a reply to correlation id " + correlation + " is awaited already");
        }
        // orTimeout completes this same future; every way it completes removes its entry
        CompletableFuture<T> answered = reply.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
                .whenComplete((value, failure) -> pending.remove(correlation, reply));
        try {
            send.get().whenComplete((sent, failure) -> {
                if (failure != null) {
                    reply.completeExceptionally(failure); // no reply will come
                }
            });
        } catch (RuntimeException refused) {
            reply.completeExceptionally(refused);
        }
        return answered;
    }

    /** The reply to {@code correlation} arrived; dropped when nobody awaits it (any more). */
    void complete(int correlation, T reply) {
        CompletableFuture<T> waiting = pending.get(correlation);
        if (waiting != null) {
            waiting.complete(reply);
        }
    }

    /** Replies awaited now. */
    int size() {
        return pending.size();
    }
}

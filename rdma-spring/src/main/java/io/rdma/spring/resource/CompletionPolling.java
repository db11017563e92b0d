package io.rdma.spring.resource;

import java.time.Duration;

/**
 * How a completion queue's poller takes completions: its mode, busy-poll window and batch size,
 * and what it does between polls that found the queue empty ({@code idle}, with {@code backoff}'s
 * parameters where it backs off).
 */
public record CompletionPolling(CompletionMode mode, Duration pollWindow, int batchSize, CompletionIdle idle,
                                IdleBackoff backoff) {

    /** Spinning between polls, as a poller did before it could back off. */
    public CompletionPolling(CompletionMode mode, Duration pollWindow, int batchSize) {
        this(mode, pollWindow, batchSize, CompletionIdle.SPIN, IdleBackoff.DEFAULT);
    }
}

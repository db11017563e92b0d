package io.rdma.spring.resource;

/**
 * What a completion poller does between polls that found its queue empty, while it polls
 * ({@link CompletionMode#POLLING}, and {@link CompletionMode#ADAPTIVE} within its poll window).
 */
public enum CompletionIdle {
    /** Polls again at once: the lowest latency, and a whole core, whether completions come or not. */
    SPIN,
    /**
     * Spins a while, then yields the core, then parks for growing intervals ({@link IdleBackoff}),
     * from the first empty poll after a completion: a thread or process that shares the core runs
     * while completions pause.
     */
    BACKOFF
}

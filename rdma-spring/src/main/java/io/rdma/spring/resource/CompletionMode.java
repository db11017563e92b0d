package io.rdma.spring.resource;

/** How completions of a completion queue reach the application. */
public enum CompletionMode {
    /** Busy polling on a dedicated platform thread: lowest latency, one core per queue. */
    POLLING,
    /** Sleeping on the queue's completion channel, re-armed before each poll (verbs manual §5.4). */
    EVENT,
    /** Busy polling while completions keep arriving, sleeping on the channel after a quiet window. */
    ADAPTIVE
}

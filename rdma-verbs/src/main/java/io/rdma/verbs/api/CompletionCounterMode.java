package io.rdma.verbs.api;

/**
 * How a completion counter is kept, so an application knows what it can rely on.
 *
 * <p>Immutable, so thread-safe.
 */
public enum CompletionCounterMode {
    /** Counted by the device ({@code ibv_create_comp_cntr} succeeded). */
    HARDWARE,
    /**
     * Counted by the provider's completion path, because the device or library lacks completion
     * counters; remote RDMA reads and writes without immediate cannot be seen and are refused.
     */
    SOFTWARE,
    /** Counted by the simulated fabric, which sees every operation, local and remote. */
    SIMULATED
}

package io.rdma.verbs.api;

/**
 * {@code enum ibv_counter_description}: what a flow counter point collects.
 *
 * <p>Immutable, so thread-safe.
 */
public enum CounterDescription {
    PACKETS, BYTES
}

package io.rdma.verbs.api;

/**
 * {@code enum ibv_port_state} (verbs manual §2.4).
 *
 * <p>Immutable, so thread-safe.
 */
public enum PortState {
    NOP, DOWN, INIT, ARMED, ACTIVE, ACTIVE_DEFER;

    public static PortState of(int value) {
        return value >= 0 && value < values().length ? values()[value] : NOP;
    }
}

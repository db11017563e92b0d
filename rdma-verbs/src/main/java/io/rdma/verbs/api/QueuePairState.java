package io.rdma.verbs.api;

/**
 * {@code enum ibv_qp_state} in numeric order (verbs manual §6.2).
 *
 * <p>Immutable, so thread-safe.
 */
public enum QueuePairState {
    RESET, INIT, RTR, RTS, SQD, SQE, ERR;

    /** @throws ArrayIndexOutOfBoundsException when {@code value} is not an {@code ibv_qp_state} value */
    public static QueuePairState of(int value) {
        return values()[value];
    }
}

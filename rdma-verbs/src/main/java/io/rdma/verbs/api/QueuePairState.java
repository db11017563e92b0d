package io.rdma.verbs.api;

/** {@code enum ibv_qp_state} in numeric order (manual §6.2). */
public enum QueuePairState {
    RESET, INIT, RTR, RTS, SQD, SQE, ERR;

    public static QueuePairState of(int value) {
        return values()[value];
    }

    /** Whether {@code ibv_post_recv} is allowed: from INIT on, never in RESET. */
    public boolean acceptsReceives() {
        return this != RESET;
    }
}

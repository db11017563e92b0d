package io.rdma.verbs.api;

/** {@code enum ibv_qp_state} in numeric order (verbs manual §6.2). */
public enum QueuePairState {
    RESET, INIT, RTR, RTS, SQD, SQE, ERR;

    public static QueuePairState of(int value) {
        return values()[value];
    }
}

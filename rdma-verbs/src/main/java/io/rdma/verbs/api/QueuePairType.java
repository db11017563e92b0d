package io.rdma.verbs.api;

/**
 * {@code enum ibv_qp_type} values this API supports, with their numeric values.
 *
 * <p>Immutable, so thread-safe.
 */
public enum QueuePairType {
    RC(2), UC(3), UD(4), RAW_PACKET(8);

    private final int value;

    QueuePairType(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    /** Whether the type reaches a single remote QP set at RTR (RC, UC) rather than per work request. */
    public boolean isConnected() {
        return this == RC || this == UC;
    }
}

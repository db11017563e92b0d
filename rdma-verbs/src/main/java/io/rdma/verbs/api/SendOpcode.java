package io.rdma.verbs.api;

/**
 * {@code enum ibv_wr_opcode} values this API posts (verbs manual §7.1), with their numeric values.
 *
 * <p>Immutable, so thread-safe.
 */
public enum SendOpcode {
    RDMA_WRITE(0),
    RDMA_WRITE_WITH_IMM(1),
    SEND(2),
    SEND_WITH_IMM(3),
    RDMA_READ(4),
    ATOMIC_CMP_AND_SWP(5),
    ATOMIC_FETCH_AND_ADD(6);

    private final int value;

    SendOpcode(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    public boolean isAtomic() {
        return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }

    /** A send, with or without immediate data: the message goes to the peer's receive queue. */
    public boolean isSend() {
        return this == SEND || this == SEND_WITH_IMM;
    }

    /** RDMA write/read and atomics name remote memory and so need a remote address and rkey. */
    public boolean accessesRemoteMemory() {
        return !isSend();
    }

    /** Whether the work request carries a 32-bit immediate value to the peer's receive completion. */
    public boolean carriesImmediateData() {
        return this == SEND_WITH_IMM || this == RDMA_WRITE_WITH_IMM;
    }

    /** Which QP types may post this opcode (verbs manual §7.1 opcode table). */
    public boolean allowedOn(QueuePairType type) {
        return switch (type) {
            case RC -> true;
            case UC -> this == SEND || this == SEND_WITH_IMM || this == RDMA_WRITE || this == RDMA_WRITE_WITH_IMM;
            case UD -> this == SEND || this == SEND_WITH_IMM;
            case RAW_PACKET -> this == SEND;
        };
    }

    /** The completion opcode a successful WR of this kind reports. */
    public CompletionOpcode completionOpcode() {
        return switch (this) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> CompletionOpcode.RDMA_WRITE;
            case SEND, SEND_WITH_IMM -> CompletionOpcode.SEND;
            case RDMA_READ -> CompletionOpcode.RDMA_READ;
            case ATOMIC_CMP_AND_SWP -> CompletionOpcode.COMP_SWAP;
            case ATOMIC_FETCH_AND_ADD -> CompletionOpcode.FETCH_ADD;
        };
    }
}

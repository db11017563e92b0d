package io.rdma.verbs.api;

/**
 * {@code enum ibv_wc_opcode}: send-side opcodes, then receive-side ones from 128 on.
 *
 * <p>Immutable, so thread-safe.
 */
public enum CompletionOpcode {
    SEND(0), RDMA_WRITE(1), RDMA_READ(2), COMP_SWAP(3), FETCH_ADD(4), BIND_MW(5), LOCAL_INV(6),
    RECV(128), RECV_RDMA_WITH_IMM(129);

    private final int value;

    CompletionOpcode(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    /** Whether a completion with this opcode retires a send queue entry (as opposed to a receive). */
    public boolean isSendQueue() {
        return value < 128;
    }

    /** @throws IllegalArgumentException when {@code value} is not an {@code ibv_wc_opcode} */
    public static CompletionOpcode of(int value) {
        for (CompletionOpcode opcode : values()) {
            if (opcode.value == value) {
                return opcode;
            }
        }
        throw new IllegalArgumentException("not an ibv_wc_opcode: " + value);
    }
}

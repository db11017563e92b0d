package io.rdma.verbs.api;

import java.util.EnumSet;
import java.util.Set;

/**
 * {@code enum ibv_comp_cntr_attach_op}: which completions update an attached completion
 * counter. Local kinds count WRs the QP initiated; remote kinds count incoming RDMA
 * operations initiated by the peer.
 *
 * <p>Immutable, so thread-safe.
 */
public enum CompletionCounterOp {
    SEND(1),
    RECV(1 << 1),
    RDMA_READ(1 << 2),
    REMOTE_RDMA_READ(1 << 3),
    RDMA_WRITE(1 << 4),
    REMOTE_RDMA_WRITE(1 << 5);

    private final int bit;

    CompletionCounterOp(int bit) {
        this.bit = bit;
    }

    public int bit() {
        return bit;
    }

    public boolean isRemote() {
        return this == REMOTE_RDMA_READ || this == REMOTE_RDMA_WRITE;
    }

    public static int mask(Set<CompletionCounterOp> ops) {
        int mask = 0;
        for (CompletionCounterOp op : ops) {
            mask |= op.bit;
        }
        return mask;
    }

    public static Set<CompletionCounterOp> fromMask(int mask) {
        EnumSet<CompletionCounterOp> ops = EnumSet.noneOf(CompletionCounterOp.class);
        for (CompletionCounterOp op : values()) {
            if ((mask & op.bit) != 0) {
                ops.add(op);
            }
        }
        return ops;
    }
}

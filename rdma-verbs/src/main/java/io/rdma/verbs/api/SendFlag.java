package io.rdma.verbs.api;

import java.util.Set;

/**
 * {@code enum ibv_send_flags} (verbs manual §7.1), with their {@code IBV_SEND_*} bit values. A
 * {@link SendWorkRequest} carries none unless set, as a zeroed {@code struct ibv_send_wr} does:
 * a request completes into the send CQ only with {@link #SIGNALED} (or on a QP created with
 * {@code sq_sig_all}). Immutable; thread-safe.
 */
public enum SendFlag {
    /** Wait for earlier RDMA reads and atomics to complete before this WR starts. */
    FENCE(1),
    /** Generate a work completion when this WR completes (verbs manual §7.1.6). */
    SIGNALED(1 << 1),
    /** Set the solicited-event bit, waking a receiver armed for solicited events only. */
    SOLICITED(1 << 2),
    /** Copy the data into the WR at post time; its entries need no lkey (verbs manual §7.1.5). */
    INLINE(1 << 3),
    /** Offload the IP checksum (raw packet QPs). */
    IP_CSUM(1 << 4);

    private final int bit;

    SendFlag(int bit) {
        this.bit = bit;
    }

    /** The {@code IBV_SEND_*} value. */
    public int bit() {
        return bit;
    }

    /** The {@code send_flags} word of {@code flags}. */
    public static int mask(Set<SendFlag> flags) {
        int mask = 0;
        for (SendFlag flag : flags) {
            mask |= flag.bit;
        }
        return mask;
    }
}

package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.spi.PostedSendRing;

import org.jspecify.annotations.Nullable;

/**
 * A QP's send WRs posted and not yet completed, with their opcodes: a completion retires its
 * WR and every WR before it, which the signaled one completed implicitly (verbs manual §7.1.6), so
 * software completion counters see unsignaled WRs too. Which WR a completion belongs to is
 * decided by position ({@link PostedSendRing}), as wr_ids may repeat.
 */
final class PostedSends {

    private static final SendOpcode[] OPCODES = SendOpcode.values();

    /** Told of each WR a completion retires. */
    @FunctionalInterface
    interface Retired {
        void retired(SendOpcode opcode, boolean success);
    }

    private final PostedSendRing ring;
    private final byte[] opcodes;

    PostedSends(int capacity) {
        this.ring = new PostedSendRing(capacity);
        this.opcodes = new byte[ring.slots()];
    }

    void record(long wrId, SendOpcode opcode, boolean signaled) {
        opcodes[ring.slot(ring.record(wrId, signaled))] = (byte) opcode.ordinal();
    }

    /** Forgets the newest {@code count} records: WRs the device refused. */
    void unrecord(int count) {
        ring.unrecord(count);
    }

    /**
     * The opcode of the outstanding WR an error completion with {@code wrId} belongs to, or
     * null when it belongs to none (it is a receive's).
     */
    @Nullable SendOpcode failedOpcode(long wrId) {
        long position = ring.completedPosition(wrId, false);
        return position < 0 ? null : OPCODES[opcodes[ring.slot(position)]];
    }

    /**
     * Retires the WR a completion belongs to and those before it: those before it completed
     * successfully, it completed with {@code success}. Does nothing if it belongs to none.
     */
    void retire(long wrId, boolean success, Retired retired) {
        long found = ring.completedPosition(wrId, success);
        if (found < 0) {
            return;
        }
        for (long position = ring.head(); position <= found; position++) {
            retired.retired(OPCODES[opcodes[ring.slot(position)]], position != found || success);
        }
        ring.retireThrough(found);
    }

    /** A QP back in RESET has an empty send queue. */
    void clear() {
        ring.clear();
    }
}

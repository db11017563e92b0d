package io.rdma.verbs.provider.nativ;

import io.rdma.verbs.api.SendOpcode;

/**
 * A QP's send WRs posted and not yet completed, with their opcodes: filled at post (under
 * the QP's send lock), consumed at poll (under the CQ's poll lock), so this single-producer,
 * single-consumer ring needs no lock. A completion retires its WR and every WR before it,
 * which the signaled one completed implicitly (manual §7.1.6), so software completion
 * counters see unsignaled WRs too. It never overflows: the API admits no more outstanding
 * WRs than the send queue holds.
 */
final class PostedSends {

    private static final SendOpcode[] OPCODES = SendOpcode.values();

    /** Told of each WR a completion retires. */
    @FunctionalInterface
    interface Retired {
        void retired(SendOpcode opcode, boolean success);
    }

    private final long[] wrIds;
    private final byte[] opcodes;
    private final int mask;
    private volatile long head;
    private volatile long tail;

    PostedSends(int capacity) {
        int size = Integer.highestOneBit(Math.max(1, capacity - 1)) << 1;
        this.wrIds = new long[size];
        this.opcodes = new byte[size];
        this.mask = size - 1;
    }

    void record(long wrId, SendOpcode opcode) {
        long position = tail;
        wrIds[(int) (position & mask)] = wrId;
        opcodes[(int) (position & mask)] = (byte) opcode.ordinal();
        tail = position + 1;
    }

    /** Forgets the newest {@code count} records: WRs the device refused. */
    void unrecord(int count) {
        tail = tail - count;
    }

    /** The opcode of the oldest outstanding WR with this wr_id, or null when none is outstanding. */
    SendOpcode opcodeOf(long wrId) {
        for (long position = head, end = tail; position < end; position++) {
            if (wrIds[(int) (position & mask)] == wrId) {
                return OPCODES[opcodes[(int) (position & mask)]];
            }
        }
        return null;
    }

    /**
     * Retires the WRs up to and including the oldest one with {@code wrId}: those before it
     * completed successfully, it completed with {@code success}. Does nothing if the wr_id is
     * not outstanding.
     */
    void retireThrough(long wrId, boolean success, Retired retired) {
        long end = tail;
        long found = -1;
        for (long position = head; position < end; position++) {
            if (wrIds[(int) (position & mask)] == wrId) {
                found = position;
                break;
            }
        }
        if (found < 0) {
            return;
        }
        for (long position = head; position <= found; position++) {
            retired.retired(OPCODES[opcodes[(int) (position & mask)]], position != found || success);
        }
        head = found + 1;
    }

    /** A QP back in RESET has an empty send queue. */
    void clear() {
        head = tail;
    }
}

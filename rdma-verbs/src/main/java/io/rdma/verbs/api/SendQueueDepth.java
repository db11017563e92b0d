package io.rdma.verbs.api;

/**
 * Send-queue depth accounting (manual §7.1.6): a WR holds its send-queue slot, signaled or
 * not, until a completion at or after it is polled. Posters (serialized by the QP's send
 * lock) record wr_ids; the poller of the send CQ (serialized by the CQ's poll lock) retires
 * them, so this single-producer, single-consumer ring needs no lock of its own.
 */
final class SendQueueDepth {

    private final int capacity;
    private final long[] wrIds;
    private final int mask;
    private volatile long head;
    private volatile long tail;

    SendQueueDepth(int capacity) {
        this.capacity = capacity;
        int size = Integer.highestOneBit(Math.max(1, capacity - 1)) << 1;
        this.wrIds = new long[size];
        this.mask = size - 1;
    }

    int capacity() {
        return capacity;
    }

    int outstanding() {
        return (int) (tail - head);
    }

    boolean hasRoomFor(int count) {
        return tail - head + count <= capacity;
    }

    /** Producer side, before the provider sees the WR, so a completion can never outrun its record. */
    void record(long wrId) {
        long position = tail;
        wrIds[(int) (position & mask)] = wrId;
        tail = position + 1;
    }

    /** Producer side: forgets the newest {@code count} records, for WRs the provider refused. */
    void unrecord(int count) {
        tail = tail - count;
    }

    /** Consumer side: a completion for {@code wrId} frees its slot and those of the unsignaled WRs before it. */
    void retireThrough(long wrId) {
        long position = head;
        long end = tail;
        while (position < end) {
            long recorded = wrIds[(int) (position & mask)];
            position++;
            if (recorded == wrId) {
                head = position;
                return;
            }
        }
    }

    /** A QP back in RESET has an empty send queue. */
    void clear() {
        head = tail;
    }
}

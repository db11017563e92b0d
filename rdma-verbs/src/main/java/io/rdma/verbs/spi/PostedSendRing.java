package io.rdma.verbs.spi;

/**
 * A QP's send WRs posted and not yet retired, in posting order, with their wr_ids and whether
 * each asks for a completion. The send queue completes in order, so a completion retires a
 * prefix of this ring: which prefix is decided by position, since wr_id is the application's
 * opaque value and may repeat (all 0 is common for unsignaled WRs).
 *
 * <ul>
 * <li>A successful completion belongs to the oldest outstanding signaled WR; the unsignaled
 * WRs before it completed silently (verbs manual §7.1.6), so it retires them too.</li>
 * <li>An error completion is produced for an unsignaled WR too (and for every WR flushed after
 * it), so it belongs to a WR no later than the oldest signaled one: the oldest in that range
 * carrying its wr_id. With repeated wr_ids that may be too early a WR, which leaves slots held
 * only until the errored QP is reset, as it must be before it is used again.</li>
 * </ul>
 *
 * <p>Posters (serialized by the QP's send lock) record; the poller of the send CQ (serialized
 * by the CQ's poll lock) retires, so this single-producer, single-consumer ring needs no lock.
 * Callers keep per-WR data of their own in arrays of {@link #slots()} entries, at {@link #slot}.
 */
public final class PostedSendRing {

    private final long[] wrIds;
    private final boolean[] signaled;
    private final int mask;
    private volatile long head;
    private volatile long tail;

    /** Room for {@code capacity} outstanding WRs; the API never admits more. */
    public PostedSendRing(int capacity) {
        int size = Integer.highestOneBit(Math.max(1, capacity - 1)) << 1;
        this.wrIds = new long[size];
        this.signaled = new boolean[size];
        this.mask = size - 1;
    }

    /** The length of a caller's per-WR array. */
    public int slots() {
        return wrIds.length;
    }

    /** The index, in a per-WR array, of the WR at {@code position}. */
    public int slot(long position) {
        return (int) (position & mask);
    }

    public int outstanding() {
        return (int) (tail - head);
    }

    /** Position of the oldest outstanding WR. */
    public long head() {
        return head;
    }

    /** Producer side, before the device sees the WR; returns its position. */
    public long record(long wrId, boolean signaledWr) {
        long position = tail;
        wrIds[slot(position)] = wrId;
        signaled[slot(position)] = signaledWr;
        tail = position + 1;
        return position;
    }

    /** Producer side: forgets the newest {@code count} records, WRs that were not posted. */
    public void unrecord(int count) {
        tail = tail - count;
    }

    /**
     * Position of the WR a completion belongs to (see the class comment), or -1 when no
     * outstanding WR can have produced it.
     */
    public long completedPosition(long wrId, boolean success) {
        for (long position = head, end = tail; position < end; position++) {
            boolean signaledWr = signaled[slot(position)];
            if (success ? signaledWr : wrIds[slot(position)] == wrId) {
                return position;
            }
            if (signaledWr) {
                return -1;
            }
        }
        return -1;
    }

    /** Consumer side: the WRs before {@code position} and the one at it are done. */
    public void retireThrough(long position) {
        head = position + 1;
    }

    /** A QP back in RESET has an empty send queue. */
    public void clear() {
        head = tail;
    }
}

package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.CompletionBatch;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.spi.CqHandle;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A completion queue: a ring of completion entries in primitive arrays (no object per
 * completion). Producers (the QPs completing work, on any thread) serialize on a lock; the
 * poller, one at a time as the API guarantees, reads without it: {@code tail} publishes
 * entries, {@code head} frees them, so a poller never waits on a producer. A completion
 * arriving while the ring is full is an overrun (manual §5.2): the CQ enters error,
 * {@code IBV_EVENT_CQ_ERR} is raised and polling fails from then on.
 */
final class SimulatedCq implements CqHandle {

    private static final int NOT_ARMED = 0;
    private static final int ARMED_ANY = 1;
    private static final int ARMED_SOLICITED = 2;
    private static final VarHandle ARMED;

    static {
        try {
            ARMED = MethodHandles.lookup().findVarHandle(SimulatedCq.class, "armed", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final SimulatedContext context;
    private final SimulatedChannel channel;
    private final boolean timestamps;
    private final int capacity;
    private final long[] wrIds;
    private final CompletionStatus[] statuses;
    private final CompletionOpcode[] opcodes;
    private final int[] byteLengths;
    private final int[] immediates;
    private final int[] flags;
    private final int[] qpNumbers;
    private final int[] sourceQps;
    private final int[] sourceLids;
    private final long[] times;
    private final ReentrantLock pushLock = new ReentrantLock();
    private volatile long head;
    private volatile long tail;
    private volatile int armed = NOT_ARMED;
    private volatile boolean overrun;

    SimulatedCq(SimulatedContext context, int capacity, SimulatedChannel channel, boolean timestamps) {
        this.context = context;
        this.capacity = capacity;
        this.channel = channel;
        this.timestamps = timestamps;
        wrIds = new long[capacity];
        statuses = new CompletionStatus[capacity];
        opcodes = new CompletionOpcode[capacity];
        byteLengths = new int[capacity];
        immediates = new int[capacity];
        flags = new int[capacity];
        qpNumbers = new int[capacity];
        sourceQps = new int[capacity];
        sourceLids = new int[capacity];
        times = new long[capacity];
    }

    /** Writes one completion; {@code solicited} wakes a CQ armed for solicited completions only. */
    void push(long wrId, CompletionStatus status, CompletionOpcode opcode, int byteLength, int immediate,
              int completionFlags, int qpNumber, int sourceQp, int sourceLid, boolean solicited) {
        pushLock.lock();
        try {
            if (overrun) {
                return;
            }
            long position = tail;
            if (position - head == capacity) {
                overrun = true;
                context.raise(AsyncEventType.CQ_ERR, this, 0);
                return;
            }
            int slot = (int) (position % capacity);
            wrIds[slot] = wrId;
            statuses[slot] = status;
            opcodes[slot] = opcode;
            byteLengths[slot] = byteLength;
            immediates[slot] = immediate;
            flags[slot] = completionFlags;
            qpNumbers[slot] = qpNumber;
            sourceQps[slot] = sourceQp;
            sourceLids[slot] = sourceLid;
            times[slot] = timestamps ? System.nanoTime() : -1;
            tail = position + 1;
        } finally {
            pushLock.unlock();
        }
        // Read after publishing, while requestNotify arms before the poller reads tail: one of
        // the two always sees the other, so no completion slips between arm and poll (§5.4).
        int mode = armed;
        boolean notify = mode == ARMED_ANY || (mode == ARMED_SOLICITED && (solicited || !status.isSuccess()));
        if (notify && ARMED.compareAndSet(this, mode, NOT_ARMED) && channel != null) {
            channel.signal(this);
        }
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public int poll(CompletionBatch batch, int max) {
        if (overrun) {
            throw new VerbsException("ibv_poll_cq", Errno.EOVERFLOW, "completion queue overrun: a completion "
                    + "arrived while all " + capacity + " entries were full", "size the CQ for every WR that can "
                    + "be outstanding on it (cqe >= send_wr + recv_wr of its QPs, manual §5.2) and recreate it");
        }
        long position = head;
        int taken = (int) Math.min(max, tail - position);
        for (int i = 0; i < taken; i++) {
            int slot = (int) ((position + i) % capacity);
            batch.slot(i).set(wrIds[slot], statuses[slot], opcodes[slot], 0, byteLengths[slot], immediates[slot],
                    qpNumbers[slot], sourceQps[slot], flags[slot], 0, sourceLids[slot], 0, times[slot]);
        }
        head = position + taken;
        return taken;
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        armed = solicitedOnly ? ARMED_SOLICITED : ARMED_ANY;
    }

    @Override
    public void acknowledgeEvents(int events) {
        // Events are handed out one at a time and never held, so there is nothing to wait for at destroy.
    }

    @Override
    public void destroy() {
        if (channel != null) {
            channel.discard(this);
        }
        context.device().release(ResourceKind.COMPLETION_QUEUE);
    }
}

package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.CompletionBatch;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.spi.CqHandle;

import java.util.concurrent.locks.ReentrantLock;

/**
 * A completion queue: a ring of completion entries in primitive arrays (no object per
 * completion). A completion arriving while the ring is full is an overrun (manual §5.2):
 * the CQ enters error, {@code IBV_EVENT_CQ_ERR} is raised and polling fails from then on.
 */
final class SimulatedCq implements CqHandle {

    private static final int NOT_ARMED = 0;
    private static final int ARMED_ANY = 1;
    private static final int ARMED_SOLICITED = 2;

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
    private final ReentrantLock lock = new ReentrantLock();
    private int head;
    private int count;
    private int armed = NOT_ARMED;
    private boolean overrun;

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
        boolean notify;
        lock.lock();
        try {
            if (overrun) {
                return;
            }
            if (count == capacity) {
                overrun = true;
                context.raise(AsyncEventType.CQ_ERR, this, 0);
                return;
            }
            int slot = (head + count) % capacity;
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
            count++;
            notify = armed == ARMED_ANY || (armed == ARMED_SOLICITED && (solicited || !status.isSuccess()));
            if (notify) {
                armed = NOT_ARMED;
            }
        } finally {
            lock.unlock();
        }
        if (notify && channel != null) {
            channel.signal(this);
        }
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public int poll(CompletionBatch batch, int max) {
        lock.lock();
        try {
            if (overrun) {
                throw new VerbsException("ibv_poll_cq", Errno.EOVERFLOW, "completion queue overrun: a completion "
                        + "arrived while all " + capacity + " entries were full", "size the CQ for every WR that can "
                        + "be outstanding on it (cqe >= send_wr + recv_wr of its QPs, manual §5.2) and recreate it");
            }
            int taken = Math.min(max, count);
            for (int i = 0; i < taken; i++) {
                int slot = (head + i) % capacity;
                batch.slot(i).set(wrIds[slot], statuses[slot], opcodes[slot], 0, byteLengths[slot], immediates[slot],
                        qpNumbers[slot], sourceQps[slot], flags[slot], 0, sourceLids[slot], 0, times[slot]);
            }
            head = (head + taken) % capacity;
            count -= taken;
            return taken;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        lock.lock();
        try {
            armed = solicitedOnly ? ARMED_SOLICITED : ARMED_ANY;
        } finally {
            lock.unlock();
        }
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

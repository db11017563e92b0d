package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.spi.CompletionSink;
import io.rdma.verbs.spi.CqHandle;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * A completion queue: a ring of completion entries packed into one {@code long[]} (no object
 * per completion). Producers (the QPs completing work, on any thread) serialize on a lock;
 * the poller, one at a time as the API guarantees, reads without it through
 * {@link RingCursors}, so a poller never waits on a producer. A completion
 * arriving while the ring is full is an overrun (verbs manual §5.2): the CQ enters error,
 * {@code IBV_EVENT_CQ_ERR} is raised and polling fails from then on, and every QP whose
 * completion is lost to it enters ERR ({@code IBV_EVENT_QP_FATAL}, raised by the QP).
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

    /** One 64-byte line per completion, so a completion crosses between cores as one cache line. */
    private static final int STRIDE = 8;
    private static final CompletionOpcode[] OPCODES = CompletionOpcode.values();

    private final SimulatedContext context;
    private final @Nullable SimulatedChannel channel;
    private final boolean timestamps;
    private final long[] entries;
    private final RingCursors cursors;
    private final ReentrantLock pushLock = new DataPathLock();
    private volatile int armed = NOT_ARMED;
    private volatile boolean overrun;
    /**
     * Whether an unpublished completion was solicited or failed; guarded by the push lock and
     * only touched when a channel is attached, so it does not share the poller's hot line otherwise.
     */
    private boolean wakesSolicited;

    SimulatedCq(SimulatedContext context, int capacity, @Nullable SimulatedChannel channel, boolean timestamps) {
        this.context = context;
        this.channel = channel;
        this.timestamps = timestamps;
        this.entries = new long[capacity * STRIDE];
        this.cursors = new RingCursors(capacity);
    }

    /**
     * Writes one completion; {@code solicited} wakes a CQ armed for solicited completions only.
     * It becomes visible to pollers now, or at the end of the post in progress on this thread
     * ({@link PublishBatch}). Returns false when the completion is lost to an overrun, now or
     * earlier: the QP that produced it must then enter ERR.
     */
    boolean push(long wrId, CompletionStatus status, CompletionOpcode opcode, int byteLength, int immediate,
              int completionFlags, int qpNumber, int sourceQp, int sourceLid, boolean solicited) {
        pushLock.lock();
        try {
            if (overrun) {
                return false;
            }
            long written = cursors.written();
            if (!cursors.hasRoom(written)) {
                overrun = true;
                context.raise(AsyncEventType.CQ_ERR, this, 0);
                return false;
            }
            int base = (int) (written % cursors.capacity()) * STRIDE;
            entries[base] = wrId;
            entries[base + 1] = pack(status.ordinal(), opcode.ordinal());
            entries[base + 2] = pack(byteLength, immediate);
            entries[base + 3] = pack(qpNumber, sourceQp);
            entries[base + 4] = pack(completionFlags, sourceLid);
            entries[base + 5] = timestamps ? System.nanoTime() : -1;
            cursors.wrote();
            if (channel != null) {
                wakesSolicited |= solicited || !status.isSuccess();
            }
        } finally {
            pushLock.unlock();
        }
        if (!PublishBatch.defer(this)) {
            publish();
        }
        return true;
    }

    /** Makes every written completion visible, then signals the channel if the CQ is armed for them. */
    void publish() {
        boolean solicited;
        pushLock.lock();
        try {
            cursors.publishWritten();
            solicited = wakesSolicited;
            wakesSolicited = false;
        } finally {
            pushLock.unlock();
        }
        if (channel == null) {
            return;
        }
        // Publish, fence, then read the arm state, while requestNotify arms before the poller
        // reads the tail: one of the two always sees the other, so no completion slips between
        // arm and poll (verbs manual §5.4).
        VarHandle.fullFence();
        int mode = armed;
        boolean notify = mode == ARMED_ANY || (mode == ARMED_SOLICITED && solicited);
        if (notify && ARMED.compareAndSet(this, mode, NOT_ARMED)) {
            channel.signal(this);
        }
    }

    private static long pack(int low, int high) {
        return (low & 0xFFFF_FFFFL) | ((long) high << 32);
    }

    @Override
    public int capacity() {
        return cursors.capacity();
    }

    @Override
    public int poll(CompletionSink sink, int max) {
        if (overrun) {
            throw new VerbsException("ibv_poll_cq", Errno.EOVERFLOW, "completion queue overrun: a completion "
                    + "arrived while all " + cursors.capacity() + " entries were full", "size the CQ for every WR "
                    + "that can be outstanding on it (cqe >= send_wr + recv_wr of its QPs, verbs manual §5.2) and recreate it");
        }
        long position = cursors.head();
        int taken = (int) Math.min(max, cursors.tail() - position);
        for (int i = 0; i < taken; i++) {
            int base = (int) ((position + i) % cursors.capacity()) * STRIDE;
            long statusAndOpcode = entries[base + 1];
            long lengthAndImmediate = entries[base + 2];
            long qpNumbers = entries[base + 3];
            long flagsAndLid = entries[base + 4];
            sink.put(i, entries[base], CompletionStatus.of((int) statusAndOpcode),
                    OPCODES[(int) (statusAndOpcode >>> 32)], 0, (int) lengthAndImmediate,
                    (int) (lengthAndImmediate >>> 32), (int) qpNumbers, (int) (qpNumbers >>> 32), (int) flagsAndLid,
                    0, (int) (flagsAndLid >>> 32), 0, entries[base + 5]);
        }
        cursors.release(position + taken);
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
        context.device().checkInjected("ibv_destroy_cq");
        if (channel != null) {
            channel.discard(this);
        }
        context.device().release(ResourceKind.COMPLETION_QUEUE);
    }
}

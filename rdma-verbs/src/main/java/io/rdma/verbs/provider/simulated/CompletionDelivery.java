package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.provider.support.SoftwareCompletionCounter;
import io.rdma.verbs.spi.CompletionCounterHandle;

import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * Where a QP's work requests end: the completions it writes into its CQs, the completion
 * counters attached to it, and the flush that completes everything outstanding with
 * {@code IBV_WC_WR_FLUSH_ERR} when it enters ERR.
 */
final class CompletionDelivery {

    private final SimulatedQp qp;
    private final SimulatedCq sendCq;
    private final SimulatedCq recvCq;
    private final boolean signalAll;
    private final @Nullable SoftwareCompletionCounter[] counters =
            new SoftwareCompletionCounter[CompletionCounterOp.values().length];

    CompletionDelivery(SimulatedQp qp, SimulatedCq sendCq, SimulatedCq recvCq, boolean signalAll) {
        this.qp = qp;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.signalAll = signalAll;
    }

    /**
     * Writes a completion of this QP into {@code cq}. A completion lost to an overrun of the CQ
     * puts this QP in ERR with {@code IBV_EVENT_QP_FATAL} (IBA 11.6.3: a CQ overrun is a
     * catastrophic error of every work queue that goes on completing into it).
     */
    private void completeInto(SimulatedCq cq, long wrId, CompletionStatus status, CompletionOpcode opcode,
                              int length, int immediate, int completionFlags, int sourceQp, int sourceLid,
                              boolean solicited) {
        if (!cq.push(wrId, status, opcode, length, immediate, completionFlags, qp.qpNumber(), sourceQp, sourceLid,
                solicited)) {
            qp.failFromFabric(AsyncEventType.QP_FATAL);
        }
    }

    /** Completes the head WR: a CQE when signaled (errors always are), the counter, the slot freed. */
    void completeSend(int slot, CompletionStatus status, long length) {
        PendingSends pending = qp.pending;
        SendOpcode opcode = pending.opcodes[slot];
        boolean signaled = signalAll || (pending.flags[slot] & SendFlag.SIGNALED.bit()) != 0 || !status.isSuccess();
        if (signaled) {
            completeInto(sendCq, pending.wrIds[slot], status, opcode.completionOpcode(), (int) length, 0, 0, 0, 0,
                    false);
        }
        CompletionCounterOp counted = counterOp(opcode);
        if (counted != null) {
            count(counted, !status.isSuccess());
        }
        pending.removeHead();
    }

    private static @Nullable CompletionCounterOp counterOp(SendOpcode opcode) {
        return switch (opcode) {
            case SEND, SEND_WITH_IMM -> CompletionCounterOp.SEND;
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> CompletionCounterOp.RDMA_WRITE;
            case RDMA_READ -> CompletionCounterOp.RDMA_READ;
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> null;
        };
    }

    /** Completes the head receive WR of {@code queue} in error and returns {@code status}. Receive lock held. */
    CompletionStatus failHeadReceive(ReceiveQueue queue, CompletionStatus status) {
        long wrId = queue.headWrId();
        queue.consumeHead();
        completeInto(recvCq, wrId, status, CompletionOpcode.RECV, 0, 0, 0, 0, 0, false);
        count(CompletionCounterOp.RECV, true);
        return status;
    }

    /** Completes the head receive WR of {@code queue}, into which a message landed. Receive lock held. */
    void completeReceive(ReceiveQueue queue, CompletionOpcode opcode, long length, int immediate,
                         int completionFlags, int sourceQp, int sourceLid, int sendFlags,
                         CompletionCounterOp counted) {
        long wrId = queue.headWrId();
        queue.consumeHead();
        completeInto(recvCq, wrId, CompletionStatus.SUCCESS, opcode, (int) length, immediate, completionFlags,
                sourceQp, sourceLid, (sendFlags & SendFlag.SOLICITED.bit()) != 0);
        count(counted, false);
    }

    /** Completes every outstanding WR with {@code IBV_WC_WR_FLUSH_ERR}. Send lock held. */
    void flushAll() {
        flushPendingSends();
        if (qp.srq == null) {
            flushReceives();
        }
    }

    void flushPendingSends() {
        PendingSends pending = qp.pending;
        while (!pending.isEmpty()) {
            completeSend(pending.head(), CompletionStatus.WR_FLUSH_ERR, 0);
        }
    }

    /** Flushes the QP's receive queue, under its receive lock. */
    void flushReceives() {
        ReceiveQueue receiveQueue = qp.receiveQueue;
        receiveQueue.lock().lock();
        try {
            while (!receiveQueue.isEmpty()) {
                long wrId = receiveQueue.headWrId();
                receiveQueue.consumeHead();
                completeInto(recvCq, wrId, CompletionStatus.WR_FLUSH_ERR, CompletionOpcode.RECV, 0, 0, 0, 0, 0,
                        false);
                count(CompletionCounterOp.RECV, true);
            }
        } finally {
            receiveQueue.lock().unlock();
        }
    }

    /** Counts one completed WR of kind {@code op} on the counter attached for it, if any. */
    void count(CompletionCounterOp op, boolean failed) {
        SoftwareCompletionCounter counter = counters[op.ordinal()];
        if (counter != null) {
            counter.count(!failed);
        }
    }

    /** {@code ibv_qp_attach_comp_cntr} once the QP's state allows it. Send lock held. */
    void attach(CompletionCounterHandle counter, int opMask) {
        SimulatedDevice device = qp.device();
        Set<CompletionCounterOp> ops = CompletionCounterOp.fromMask(opMask);
        Set<CompletionCounterOp> unsupported = EnumSet.copyOf(ops);
        unsupported.removeAll(device.spec().completionCounterOps());
        if (ops.isEmpty() || !unsupported.isEmpty()) {
            throw Failures.unsupported("ibv_qp_attach_comp_cntr", device.name() + " cannot count " + unsupported,
                    "count only " + device.spec().completionCounterOps());
        }
        for (CompletionCounterOp op : ops) {
            if (counters[op.ordinal()] != null) {
                throw Failures.busy("ibv_qp_attach_comp_cntr", op + " is already counted by another counter on QP 0x"
                        + Integer.toHexString(qp.qpNumber()), "op masks of counters on one QP must not overlap");
            }
        }
        SoftwareCompletionCounter attached = (SoftwareCompletionCounter) counter;
        for (CompletionCounterOp op : ops) {
            counters[op.ordinal()] = attached;
        }
        attached.attached();
    }

    /** The QP is destroyed: each counter attached to it, once, is attached to one QP fewer. */
    void detachAll() {
        IdentityHashMap<SoftwareCompletionCounter, Boolean> attached = new IdentityHashMap<>();
        for (SoftwareCompletionCounter counter : counters) {
            if (counter != null && attached.put(counter, Boolean.TRUE) == null) {
                counter.detached();
            }
        }
    }
}

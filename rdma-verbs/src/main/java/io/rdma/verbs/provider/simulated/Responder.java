package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.QueuePairType;

import org.jspecify.annotations.Nullable;

/**
 * A QP as the target of what other QPs send: the requester that carries a packet calls these
 * on the responder's behalf, with the responder's receive lock held where a receive WR is
 * used, and its own scratch cursors.
 */
final class Responder {

    private final SimulatedQp qp;

    Responder(SimulatedQp qp) {
        this.qp = qp;
    }

    /** A steered raw frame arrives; dropped when no receive is posted, as on a real NIC. */
    void acceptFrame(SgeCursor frameData, SgeCursor scratch, long length) {
        if (qp.type != QueuePairType.RAW_PACKET || !qp.acceptsIncoming()) {
            return;
        }
        qp.receiveQueue.lock().lock();
        try {
            if (qp.receiveQueue.isEmpty()) {
                return;
            }
            if (scatterIntoHead(qp.receiveQueue, frameData, scratch, length, 0) == CompletionStatus.SUCCESS) {
                qp.completions.completeReceive(qp.receiveQueue, CompletionOpcode.RECV, length, 0, 0, 0, 0, 0,
                        CompletionCounterOp.RECV);
            }
        } finally {
            qp.receiveQueue.lock().unlock();
        }
    }

    /**
     * Resolves the head receive WR into {@code into} (the requester's scratch cursor) and
     * copies {@code leading} bytes of {@code from} into it, after checking that
     * {@code leading + following} bytes fit; the caller copies the following bytes. On a bad
     * SGE or a short buffer the WR completes in error here and that status is returned.
     */
    CompletionStatus scatterIntoHead(ReceiveQueue queue, SgeCursor from, SgeCursor into, long leading,
                                     long following) {
        into.clear();
        for (int i = 0; i < queue.headSgeCount(); i++) {
            long address = queue.headSgeAddress(i);
            long sgeLength = Integer.toUnsignedLong(queue.headSgeLength(i));
            SimulatedMr region = SimulatedMr.byKey(qp.fabric, queue.headSgeLkey(i));
            if (region == null || region.pd() != qp.pd || !region.allows(AccessFlag.LOCAL_WRITE)
                    || !region.covers(address, sgeLength)) {
                return qp.completions.failHeadReceive(queue, CompletionStatus.LOC_PROT_ERR);
            }
            into.add(region.memory(), region.offsetOf(address), sgeLength);
        }
        if (queue.headCapacity() < leading + following) {
            return qp.completions.failHeadReceive(queue, CompletionStatus.LOC_LEN_ERR);
        }
        return copyIntoHead(queue, from, into, leading);
    }

    /**
     * Copies {@code bytes} of {@code from} into the head receive WR's memory, resolved into
     * {@code into} by {@link #scatterIntoHead}. When that memory went away under the copy, a
     * region closed meanwhile by another thread (see {@link SgeCursor#accessible}), the WR
     * completes with LOC_PROT_ERR, as it would have had the region been closed a moment earlier
     * and its lkey check failed, and that status is returned; the requester's memory going away
     * is the requester's to handle, and is rethrown.
     */
    CompletionStatus copyIntoHead(ReceiveQueue queue, SgeCursor from, SgeCursor into, long bytes) {
        try {
            from.copyTo(into, bytes);
            return CompletionStatus.SUCCESS;
        } catch (IllegalStateException | WrongThreadException unreachable) {
            if (into.accessible()) {
                throw unreachable;
            }
            return qp.completions.failHeadReceive(queue, CompletionStatus.LOC_PROT_ERR);
        }
    }

    /** The responder's region for {@code rkey}: same PD, in range, with the access the QP and the MR allow. */
    @Nullable SimulatedMr remoteRegion(int rkey, long address, long length, AccessFlag needed) {
        SimulatedMr region = SimulatedMr.byKey(qp.fabric, rkey);
        boolean allowed = region != null && region.pd() == qp.pd && region.allows(needed)
                && AccessFlag.isSet(qp.attributes.accessMask, needed) && region.covers(address, length);
        return allowed ? region : null;
    }

}

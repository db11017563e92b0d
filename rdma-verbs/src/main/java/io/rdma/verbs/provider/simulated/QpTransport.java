package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;

/**
 * The requester side of a QP. A send WR executes on the posting thread: it is checked,
 * carried to the responder QP (receive queue, remote memory, atomics), and completed at both
 * ends, unless the responder answers RNR or the path loses it, in which case it waits at the
 * head of {@link PendingSends} for the timer that a real requester would run, and is retried
 * or failed exactly as the IB transport does. One subclass per kind of transport; its methods
 * run under the QP's send lock.
 */
abstract class QpTransport {

    enum Outcome { DONE, WAITING }

    final SimulatedQp qp;
    final SimulatedFabric fabric;
    final QueuePairType type;
    final QpAttributes attributes;
    final PendingSends pending;
    final CompletionDelivery completions;
    final SgeCursor source;
    final SgeCursor target;
    final PortTally tally = new PortTally();

    QpTransport(SimulatedQp qp) {
        this.qp = qp;
        this.fabric = qp.fabric;
        this.type = qp.type;
        this.attributes = qp.attributes;
        this.pending = qp.pending;
        this.completions = qp.completions;
        int cursorCapacity = qp.device().spec().maxSge() + 1;
        this.source = new SgeCursor(cursorCapacity);
        this.target = new SgeCursor(cursorCapacity);
    }

    /** The transport of {@code qp}'s type. */
    static QpTransport of(SimulatedQp qp) {
        return switch (qp.type) {
            case RC, UC -> new ConnectedTransport(qp);
            case UD, RAW_PACKET -> new DatagramTransport(qp);
        };
    }

    /** Executes pending WRs in order until one must wait. Send lock held. */
    final void progress() {
        try {
            while (!pending.isEmpty() && qp.state() == QueuePairState.RTS) {
                if (run(pending.head()) == Outcome.WAITING) {
                    return;
                }
            }
        } finally {
            tally.flush();
        }
    }

    /**
     * Executes the head WR. When its own memory went away under it, a region closed meanwhile
     * by another thread (see {@link SgeCursor#accessible}), it ends as it would have had the
     * region been closed a moment earlier and its lkey check failed: LOC_PROT_ERR (verbs manual
     * §13.2), the QP in ERR.
     */
    private Outcome run(int slot) {
        try {
            return execute(slot);
        } catch (IllegalStateException | WrongThreadException unreachable) {
            if (source.accessible()) {
                throw unreachable; // not the requester's memory: no closed region explains it
            }
            return failLocally(slot, CompletionStatus.LOC_PROT_ERR);
        }
    }


    /**
     * Runs the WR in {@code slot}, the head of the send queue, to its completion or until it must
     * wait. Its local memory is resolved into {@link #source}, and the responder's memory it copies
     * into or from is in {@link #target} when it is copied.
     */
    abstract Outcome execute(int slot);

    /** The QP is destroyed: it stops waiting for anything. */
    void withdraw() {
    }

    /** Resolves the head WR's local memory: inline bytes, or SGEs checked against lkeys of this PD. */
    final boolean resolveLocal(int slot, SgeCursor into, boolean localWrite) {
        if (pending.inlineLengths[slot] > 0) {
            into.add(pending.inlineData, pending.inlineOffset(slot), pending.inlineLengths[slot]);
            return true;
        }
        for (int i = 0; i < pending.sgeCounts[slot]; i++) {
            int index = pending.sgeIndex(slot, i);
            long address = pending.sgeAddresses[index];
            long length = Integer.toUnsignedLong(pending.sgeLengths[index]);
            SimulatedMr region = SimulatedMr.byKey(fabric, pending.sgeLkeys[index]);
            if (region == null || region.pd() != qp.pd || !region.covers(address, length)
                    || (localWrite && !region.allows(AccessFlag.LOCAL_WRITE))) {
                return false;
            }
            into.add(region.memory(), region.offsetOf(address), length);
        }
        return true;
    }

    /** Completes the head WR (see {@link CompletionDelivery#completeSend}): it waits no more. */
    final Outcome complete(int slot, CompletionStatus status, long length) {
        completions.completeSend(slot, status, length);
        return Outcome.DONE;
    }

    /** A local or transport error on the head WR: it completes in error, the QP enters ERR, the rest flush. */
    final Outcome failLocally(int slot, CompletionStatus status) {
        complete(slot, status, 0);
        qp.enterError();
        return Outcome.DONE;
    }

}

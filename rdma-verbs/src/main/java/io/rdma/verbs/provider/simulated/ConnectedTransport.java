package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReliabilitySettings;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.WorkCompletion;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import org.jspecify.annotations.Nullable;

/**
 * The RC and UC transport: a request goes to the one QP this QP is connected to, checked
 * there as the responder would (reachability, PSN, packet lengths, rkeys, receive queue), and
 * carries sends, RDMA writes and reads and atomics. RC answers with ACKs and NAKs: it retries
 * on RNR and on the ACK timer, and fails the WR and both QPs on a remote error; UC loses a
 * message silently where RC would retry or fail.
 */
final class ConnectedTransport extends QpTransport {

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    /** The retry timer's task, made once: scheduling a retry allocates nothing more. */
    private final Runnable resumeTask;
    /** The receive queue this QP waits on after an RNR NAK, so a destroy can withdraw from it. */
    private @Nullable ReceiveQueue waitingOn;

    ConnectedTransport(SimulatedQp qp) {
        super(qp);
        this.resumeTask = qp::resumeSends;
    }

    @Override
    Outcome execute(int slot) {
        if (type == QueuePairType.RC && attributes.timeout != 0
                && pending.transportRetriesUsed[slot] > attributes.retryCount) {
            // The first try and retry_cnt retries (verbs manual §6.2.3) were all lost, and the last
            // one's ACK timeout has passed: the WR fails, and nothing is sent again.
            return System.nanoTime() - pending.retryAt < 0 ? Outcome.WAITING
                    : failLocally(slot, CompletionStatus.RETRY_EXC_ERR);
        }
        SendOpcode opcode = pending.opcodes[slot];
        boolean resultsLandLocally = opcode == SendOpcode.RDMA_READ || opcode.isAtomic();
        if (!resolveLocal(slot, source.clear(), resultsLandLocally)) {
            return failLocally(slot, CompletionStatus.LOC_PROT_ERR);
        }
        long length = source.total();
        SimulatedQp peer = fabric.queuePairs().get(attributes.destQpNumber);
        SimulatedPort port = attributes.boundPort();
        SimulatedPort remotePort = attributes.remotePort;
        int requestPackets = resultsLandLocally ? 1 : packets(length, attributes.pathMtu.bytes());
        long requestBytes = opcode == SendOpcode.RDMA_READ ? 0 : length;
        // Nothing answers a destination that no port has (remotePort null), and a packet longer
        // than the receiving port's MTU is dropped by the link: RC times out either way (verbs
        // manual §13.2: RETRY_EXC_ERR for a wrong LID/GID, or an MTU that is not consistent).
        if (remotePort == null || peer == null || peer.type != type || peer.attributes.port != remotePort
                || !peer.acceptsIncoming() || !peer.attributes.isConnectedTo(qp)
                || (requestBytes > 0 && Math.min(length, attributes.pathMtu.bytes()) > remotePort.activeMtuBytes())
                || !port.carries(remotePort)) {
            return lost(slot);
        }
        tally.add(port, remotePort, requestPackets, requestBytes);
        if (type == QueuePairType.RC && peer.attributes.receivePsn != attributes.sendPsn) {
            // Out of sequence (class B): the responder NAKs once with its own expected PSN, which
            // this requester never sent, and drops the retries; only the ACK timer ends the wait.
            return lost(slot);
        }
        if (requestBytes > 0 && !peer.attributes.segmentsFit(length, attributes.pathMtu)) {
            return invalidLength(slot, peer);
        }
        Outcome outcome;
        try {
            outcome = switch (opcode) {
                case SEND, SEND_WITH_IMM -> deliverToReceiveQueue(slot, peer, length, null);
                case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> deliverWrite(slot, peer, length);
                case RDMA_READ -> performRead(slot, peer, port, remotePort, length);
                case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> performAtomic(slot, peer, port, remotePort);
            };
        } catch (IllegalStateException | WrongThreadException unreachable) {
            if (!source.accessible() || target.accessible()) {
                throw unreachable;
            }
            // The responder's region went away under an RDMA write, read or atomic, closed meanwhile
            // by another thread (see SgeCursor.accessible): as if its rkey check had failed a moment earlier.
            return remoteAccessError(slot, peer);
        }
        if (type == QueuePairType.RC && outcome == Outcome.DONE && qp.state() == QueuePairState.RTS) {
            // The responder took the request. A read takes one PSN per response packet (IBA
            // 9.7.1), an atomic one; a request that waits (RNR, ACK timeout) is sent again with
            // the same PSNs, and one that failed leaves both QPs to be reset anyway.
            int sequenceNumbers = opcode.isAtomic() ? 1 : packets(length, attributes.pathMtu.bytes());
            attributes.sendPsn = (attributes.sendPsn + sequenceNumbers) & QpAttributes.PSN_MASK;
            peer.attributes.receivePsn = attributes.sendPsn;
        }
        return outcome;
    }

    /**
     * A request whose packets fail the responder's length check: on RC an invalid request
     * (class C: NAK, the responder enters ERR with {@code IBV_EVENT_QP_REQ_ERR}, the requester's WR
     * fails with REM_INV_REQ_ERR); on UC the responder drops the message (class D).
     */
    private Outcome invalidLength(int slot, SimulatedQp peer) {
        if (type != QueuePairType.RC) {
            return complete(slot, CompletionStatus.SUCCESS, 0);
        }
        peer.failFromFabric(AsyncEventType.QP_REQ_ERR);
        return failLocally(slot, CompletionStatus.REM_INV_REQ_ERR);
    }

    /** The request never reached a responder: RC re-tries on the ACK timer, UC simply lost it. */
    private Outcome lost(int slot) {
        if (type != QueuePairType.RC) {
            return complete(slot, CompletionStatus.SUCCESS, 0);
        }
        long now = System.nanoTime();
        if (now - pending.retryAt < 0) {
            return Outcome.WAITING;
        }
        // Each lost try waits out one ACK timeout; once the first try and retry_cnt retries are lost,
        // execute fails the WR when the last one's timeout has passed, sending nothing more.
        pending.transportRetriesUsed[slot]++;
        long delay = IbTimers.ackTimeoutNanos(attributes.timeout);
        pending.retryAt = now + delay;
        fabric.schedule(resumeTask, delay);
        return Outcome.WAITING;
    }

    /** The responder had no receive posted: RC waits for one (RNR NAK), UC and UD drop the message. */
    private Outcome receiverNotReady(int slot, SimulatedQp peer) {
        if (type != QueuePairType.RC) {
            return complete(slot, CompletionStatus.SUCCESS, 0);
        }
        peer.receiveQueue.awaitReceive(qp);
        waitingOn = peer.receiveQueue;
        long now = System.nanoTime();
        if (now - pending.retryAt < 0) {
            return Outcome.WAITING;
        }
        if (attributes.rnrRetry != ReliabilitySettings.INFINITE_RNR_RETRY
                && pending.rnrRetriesUsed[slot]++ >= attributes.rnrRetry) {
            peer.receiveQueue.forget(qp);
            return failLocally(slot, CompletionStatus.RNR_RETRY_EXC_ERR);
        }
        long delay = IbTimers.rnrNanos(peer.attributes.minRnrTimer);
        pending.retryAt = now + delay;
        fabric.schedule(resumeTask, delay);
        return Outcome.WAITING;
    }

    /**
     * A SEND (region null) or an RDMA write with immediate (into {@code writeRegion}) consumes the
     * responder's head receive WR, under the responder's receive lock.
     */
    private Outcome deliverToReceiveQueue(int slot, SimulatedQp peer, long length, @Nullable SimulatedMr writeRegion) {
        CompletionStatus remoteStatus;
        ReceiveQueue queue = peer.receiveQueue;
        queue.lock().lock();
        try {
            if (!peer.acceptsIncoming()) {
                remoteStatus = null;
            } else if (queue.isEmpty()) {
                remoteStatus = CompletionStatus.RNR_RETRY_EXC_ERR;
            } else if (writeRegion == null) {
                remoteStatus = peer.responder.scatterIntoHead(queue, source, target, length, 0);
                if (remoteStatus == CompletionStatus.SUCCESS) {
                    boolean withImmediate = pending.opcodes[slot] == SendOpcode.SEND_WITH_IMM;
                    peer.completions.completeReceive(queue, CompletionOpcode.RECV, length, pending.immediates[slot],
                            withImmediate ? WorkCompletion.FLAG_WITH_IMM : 0, qp.qpNumber(),
                            attributes.boundPort().lid(), pending.flags[slot], CompletionCounterOp.RECV);
                }
            } else {
                writeRemote(slot, writeRegion, length);
                peer.completions.completeReceive(queue, CompletionOpcode.RECV_RDMA_WITH_IMM, length,
                        pending.immediates[slot], WorkCompletion.FLAG_WITH_IMM, qp.qpNumber(),
                        attributes.boundPort().lid(), pending.flags[slot], CompletionCounterOp.REMOTE_RDMA_WRITE);
                remoteStatus = CompletionStatus.SUCCESS;
            }
        } finally {
            queue.lock().unlock();
        }
        return afterResponder(slot, peer, remoteStatus, length);
    }

    private void writeRemote(int slot, SimulatedMr region, long length) {
        source.copyTo(target.clear().add(region.memory(), region.offsetOf(pending.remoteAddresses[slot]), length),
                length);
    }

    /**
     * Turns the responder's answer into the requester's outcome, outside the responder's lock:
     * null = it could not take the packet (lost), RNR_RETRY_EXC_ERR = no receive posted.
     */
    private Outcome afterResponder(int slot, SimulatedQp peer, @Nullable CompletionStatus remoteStatus,
                                   long length) {
        if (remoteStatus == null) {
            return lost(slot);
        }
        if (remoteStatus == CompletionStatus.RNR_RETRY_EXC_ERR) {
            return receiverNotReady(slot, peer);
        }
        if (remoteStatus != CompletionStatus.SUCCESS) {
            peer.failFromFabric(null);
            return type == QueuePairType.RC ? failLocally(slot, remoteStatus == CompletionStatus.LOC_LEN_ERR
                    ? CompletionStatus.REM_INV_REQ_ERR : CompletionStatus.REM_OP_ERR)
                    : complete(slot, CompletionStatus.SUCCESS, 0);
        }
        return complete(slot, CompletionStatus.SUCCESS, length);
    }

    private Outcome deliverWrite(int slot, SimulatedQp peer, long length) {
        SimulatedMr region = peer.responder.remoteRegion(pending.rkeys[slot], pending.remoteAddresses[slot], length,
                AccessFlag.REMOTE_WRITE);
        if (region == null) {
            return remoteAccessError(slot, peer);
        }
        if (pending.opcodes[slot] == SendOpcode.RDMA_WRITE_WITH_IMM) {
            return deliverToReceiveQueue(slot, peer, length, region);
        }
        writeRemote(slot, region, length);
        peer.completions.count(CompletionCounterOp.REMOTE_RDMA_WRITE, false);
        return complete(slot, CompletionStatus.SUCCESS, length);
    }

    private Outcome performRead(int slot, SimulatedQp peer, SimulatedPort port, SimulatedPort remotePort,
                                long length) {
        SimulatedMr region = peer.responder.remoteRegion(pending.rkeys[slot], pending.remoteAddresses[slot], length,
                AccessFlag.REMOTE_READ);
        if (region == null) {
            return remoteAccessError(slot, peer);
        }
        if (!remotePort.transmit(port, packets(length, attributes.pathMtu.bytes()), length)) {
            return lost(slot);
        }
        target.clear().add(region.memory(), region.offsetOf(pending.remoteAddresses[slot]), length)
                .copyTo(source, length);
        peer.completions.count(CompletionCounterOp.REMOTE_RDMA_READ, false);
        return complete(slot, CompletionStatus.SUCCESS, length);
    }

    private Outcome performAtomic(int slot, SimulatedQp peer, SimulatedPort port, SimulatedPort remotePort) {
        long address = pending.remoteAddresses[slot];
        if (address % Long.BYTES != 0) {
            return failLocally(slot, CompletionStatus.REM_INV_REQ_ERR);
        }
        SimulatedMr region = peer.responder.remoteRegion(pending.rkeys[slot], address, Long.BYTES,
                AccessFlag.REMOTE_ATOMIC);
        if (region == null) {
            return remoteAccessError(slot, peer);
        }
        MemorySegment memory = target.clear().add(region.memory(), region.offsetOf(address), Long.BYTES)
                .firstSegment();
        long offset = target.firstOffset();
        long original = pending.opcodes[slot] == SendOpcode.ATOMIC_CMP_AND_SWP
                ? (long) LONG.compareAndExchange(memory, offset, pending.compareAdds[slot], pending.swaps[slot])
                : (long) LONG.getAndAdd(memory, offset, pending.compareAdds[slot]);
        remotePort.transmit(port, 1, Long.BYTES);
        source.firstSegment().set(ValueLayout.JAVA_LONG_UNALIGNED, source.firstOffset(), original);
        return complete(slot, CompletionStatus.SUCCESS, Long.BYTES);
    }

    /** An rkey check failed at the responder: both ends go to ERR, the responder with QP_ACCESS_ERR (RC only). */
    private Outcome remoteAccessError(int slot, SimulatedQp peer) {
        if (type != QueuePairType.RC) {
            return complete(slot, CompletionStatus.SUCCESS, 0);
        }
        peer.failFromFabric(AsyncEventType.QP_ACCESS_ERR);
        return failLocally(slot, CompletionStatus.REM_ACCESS_ERR);
    }

    private static int packets(long length, int mtu) {
        return (int) Math.max(1, (length + mtu - 1) / mtu);
    }


    @Override
    void withdraw() {
        if (waitingOn != null) {
            waitingOn.forget(qp);
        }
    }
}

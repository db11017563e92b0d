package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.AddressVector;
import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.FlowSpec;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.QueuePairAttributes;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.api.WorkCompletion;
import io.rdma.verbs.spi.CompCounterHandle;
import io.rdma.verbs.spi.CountersHandle;
import io.rdma.verbs.spi.FlowHandle;
import io.rdma.verbs.spi.QpHandle;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A queue pair and the transport behind it. A send WR executes on the posting thread: it is
 * checked, carried to the responder QP (receive queue, remote memory, atomics), and
 * completed at both ends, unless the responder answers RNR or the path loses it, in which
 * case it waits at the head of {@link PendingSends} for the timer that a real requester
 * would run, and is retried or failed exactly as the IB transport does.
 */
final class SimulatedQp implements QpHandle {

    private static final VarHandle STATE;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final int GRH_BYTES = 40;
    private static final int RAW_FRAME_OVERHEAD = 64;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(SimulatedQp.class, "state", QueuePairState.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private enum Outcome { DONE, WAITING }

    final SimulatedPd pd;
    private final SimulatedFabric fabric;
    final QueuePairType type;
    final SimulatedSrq srq;
    private final QueuePairCapabilities capabilities;
    private final int qpNumber;
    final ReceiveQueue receiveQueue;
    final PendingSends pending;
    private final ReentrantLock sendLock = new DataPathLock();
    private final SgeCursor source;
    private final SgeCursor target;
    private final SgeCursor grhSource = new SgeCursor(1);
    private final MemorySegment grh = MemorySegment.ofArray(new byte[GRH_BYTES]);
    private final byte[] frame;
    private final MemorySegment frameMemory;
    private final FrameHeaders headers = new FrameHeaders();
    private final PortTally tally = new PortTally();
    final QpAttributes attributes = new QpAttributes();
    final CompletionDelivery completions;
    private final SendPosting posting;
    /** The retry timer's task, made once: scheduling a retry allocates nothing more. */
    private final Runnable resumeTask = this::resumeSends;

    private volatile QueuePairState state = QueuePairState.RESET;
    private volatile boolean destroyed;
    /** The receive queue this QP waits on after an RNR NAK, so a destroy can withdraw from it. */
    private ReceiveQueue waitingOn;

    SimulatedQp(SimulatedPd pd, QueuePairType type, SimulatedCq sendCq, SimulatedCq recvCq, SimulatedSrq srq,
                QueuePairCapabilities capabilities, boolean signalAll) {
        this.pd = pd;
        this.fabric = pd.device().fabric();
        this.type = type;
        this.srq = srq;
        this.capabilities = srq == null ? capabilities : new QueuePairCapabilities(capabilities.maxSendWr(), 0,
                capabilities.maxSendSge(), 0, capabilities.maxInlineData());
        this.receiveQueue = srq != null ? srq.queue()
                : new ReceiveQueue(capabilities.maxRecvWr(), capabilities.maxRecvSge(), null, 0);
        this.pending = new PendingSends(capabilities.maxSendWr(), capabilities.maxSendSge(),
                capabilities.maxInlineData());
        int cursorCapacity = pd.device().spec().maxSge() + 1;
        this.source = new SgeCursor(cursorCapacity);
        this.target = new SgeCursor(cursorCapacity);
        this.frame = new byte[pd.device().spec().mtu().bytes() + RAW_FRAME_OVERHEAD];
        this.frameMemory = MemorySegment.ofArray(frame);
        this.completions = new CompletionDelivery(this, sendCq, recvCq, signalAll);
        this.posting = new SendPosting(this, frame.length);
        this.qpNumber = fabric.queuePairs().add(this);
    }

    SimulatedDevice device() {
        return pd.device();
    }

    @Override
    public int qpNumber() {
        return qpNumber;
    }

    @Override
    public QueuePairCapabilities capabilities() {
        return capabilities;
    }

    @Override
    public QueuePairState state() {
        return state;
    }

    private boolean acceptsIncoming() {
        QueuePairState current = state;
        return current == QueuePairState.RTR || current == QueuePairState.RTS || current == QueuePairState.SQD;
    }

    // ---------------------------------------------------------------- state

    @Override
    public void modify(QueuePairAttributes changes) {
        sendLock.lock();
        try {
            QueuePairState from = state;
            QpTransitions.check(type, from, changes);
            attributes.apply(changes, type, pd.device());
            QueuePairState to = changes.state() == null ? from : changes.state();
            if (to == QueuePairState.RESET) {
                STATE.setVolatile(this, QueuePairState.RESET);
                pending.clear();
                if (srq == null) {
                    receiveQueue.clear();
                }
            } else if (to == QueuePairState.ERR) {
                STATE.setVolatile(this, QueuePairState.ERR);
                completions.flushAll();
            } else {
                STATE.setVolatile(this, to);
                if (to == QueuePairState.RTS) {
                    progress();
                } else if (to == QueuePairState.SQD && from != QueuePairState.SQD && pending.isEmpty()) {
                    pd.context().raise(AsyncEventType.SQ_DRAINED, this, 0);
                }
            }
        } finally {
            sendLock.unlock();
        }
    }

    @Override
    public QueuePairAttributes query() {
        sendLock.lock();
        try {
            return attributes.query(state);
        } finally {
            sendLock.unlock();
        }
    }

    /** A fault outside this QP's own send path put it in ERR: flush on the event thread, never inline. */
    void failFromFabric(AsyncEventType event) {
        while (true) {
            QueuePairState current = state;
            if (current == QueuePairState.ERR || current == QueuePairState.RESET) {
                return;
            }
            if (STATE.compareAndSet(this, current, QueuePairState.ERR)) {
                break;
            }
        }
        if (event != null) {
            pd.context().raise(event, this, 0);
        }
        fabric.defer(() -> {
            sendLock.lock();
            try {
                // Only while still in ERR: the application may have reset and reconnected the QP
                // before this ran, and its new receives must not be flushed.
                if (!destroyed && state == QueuePairState.ERR) {
                    completions.flushAll();
                }
            } finally {
                sendLock.unlock();
            }
        });
    }

    // ---------------------------------------------------------------- posting

    @Override
    public void postSend(SendWorkRequest first) {
        PublishBatch batch = PublishBatch.open();
        sendLock.lock();
        try {
            QueuePairState current = state;
            posting.admit(first, current);
            if (current == QueuePairState.ERR) {
                completions.flushPendingSends();
            }
            // The whole chain runs at once, as a doorbell starts the device on everything posted.
            progress();
        } finally {
            sendLock.unlock();
            batch.close();
        }
    }

    @Override
    public void postReceive(ReceiveWorkRequest first) {
        QueuePairState current = state;
        if (current == QueuePairState.RESET) {
            throw new VerbsException("ibv_post_recv", Errno.EINVAL, "QP 0x" + Integer.toHexString(qpNumber)
                    + " is in RESET", "move it to INIT first (receives may be posted from INIT on)")
                    .withBadWorkRequest(first.wrId());
        }
        receiveQueue.post(first, "ibv_post_recv");
        if (current == QueuePairState.ERR) {
            completions.flushReceives();
        }
    }

    /** A receive was posted at a responder this QP waits on, or a retry timer fired. */
    void resumeSends() {
        sendLock.lock();
        try {
            if (!destroyed && state == QueuePairState.RTS) {
                progress();
            }
        } finally {
            sendLock.unlock();
        }
    }

    // ---------------------------------------------------------------- transport

    /** Executes pending WRs in order until one must wait. Send lock held. */
    private void progress() {
        try {
            while (!pending.isEmpty() && state == QueuePairState.RTS) {
                if (execute(pending.head()) == Outcome.WAITING) {
                    return;
                }
            }
        } finally {
            tally.flush();
        }
    }

    private Outcome execute(int slot) {
        return switch (type) {
            case RC, UC -> executeConnected(slot);
            case UD -> executeDatagram(slot);
            case RAW_PACKET -> executeRawFrame(slot);
        };
    }

    private Outcome executeConnected(int slot) {
        SendOpcode opcode = pending.opcodes[slot];
        boolean resultsLandLocally = opcode == SendOpcode.RDMA_READ || opcode.isAtomic();
        if (!resolveLocal(slot, source.clear(), resultsLandLocally)) {
            return failLocally(slot, CompletionStatus.LOC_PROT_ERR);
        }
        long length = source.total();
        SimulatedQp peer = fabric.queuePairs().get(attributes.destQpNumber);
        boolean reachable = attributes.remotePort != null && peer != null && peer.type == type && peer.attributes.port == attributes.remotePort
                && peer.acceptsIncoming() && peer.attributes.isConnectedTo(this);
        int requestPackets = resultsLandLocally ? 1 : packets(length, attributes.pathMtu.bytes());
        long requestBytes = opcode == SendOpcode.RDMA_READ ? 0 : length;
        // A packet longer than the receiving port's MTU is dropped by the link, so RC times out
        // (manual §13.2: RETRY_EXC_ERR when the MTU is not consistent).
        boolean fitsTheLink = requestBytes == 0 || Math.min(length, attributes.pathMtu.bytes()) <= attributes.remotePort.activeMtuBytes();
        if (!reachable || !fitsTheLink || !attributes.port.carries(attributes.remotePort)) {
            return lost(slot);
        }
        tally.add(attributes.port, attributes.remotePort, requestPackets, requestBytes);
        if (type == QueuePairType.RC && peer.attributes.receivePsn != attributes.sendPsn) {
            // Out of sequence (class B): the responder NAKs once with its own expected PSN, which
            // this requester never sent, and drops the retries; only the ACK timer ends the wait.
            return lost(slot);
        }
        if (requestBytes > 0 && !peer.attributes.segmentsFit(length, attributes.pathMtu)) {
            return invalidLength(slot, peer);
        }
        Outcome outcome = switch (opcode) {
            case SEND, SEND_WITH_IMM -> deliverToReceiveQueue(slot, peer, length, null);
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> deliverWrite(slot, peer, length);
            case RDMA_READ -> performRead(slot, peer, length);
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> performAtomic(slot, peer);
        };
        if (type == QueuePairType.RC && outcome == Outcome.DONE && state == QueuePairState.RTS) {
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
        if (pending.transportRetriesUsed[slot]++ >= attributes.retryCount && attributes.timeout != 0) {
            return failLocally(slot, CompletionStatus.RETRY_EXC_ERR);
        }
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
        peer.receiveQueue.awaitReceive(this);
        waitingOn = peer.receiveQueue;
        long now = System.nanoTime();
        if (now - pending.retryAt < 0) {
            return Outcome.WAITING;
        }
        if (attributes.rnrRetry != IbTimers.INFINITE_RNR_RETRY && pending.rnrRetriesUsed[slot]++ >= attributes.rnrRetry) {
            peer.receiveQueue.forget(this);
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
    private Outcome deliverToReceiveQueue(int slot, SimulatedQp peer, long length, SimulatedMr writeRegion) {
        CompletionStatus remoteStatus;
        ReceiveQueue queue = peer.receiveQueue;
        queue.lock().lock();
        try {
            if (!peer.acceptsIncoming()) {
                remoteStatus = null;
            } else if (queue.isEmpty()) {
                remoteStatus = CompletionStatus.RNR_RETRY_EXC_ERR;
            } else if (writeRegion == null) {
                remoteStatus = peer.scatterIntoHead(queue, source, target, length, 0);
                if (remoteStatus == CompletionStatus.SUCCESS) {
                    boolean withImmediate = pending.opcodes[slot] == SendOpcode.SEND_WITH_IMM;
                    peer.completions.completeReceive(queue, CompletionOpcode.RECV, length, pending.immediates[slot],
                            withImmediate ? WorkCompletion.FLAG_WITH_IMM : 0, qpNumber, attributes.port.lid(),
                            pending.flags[slot], CompletionCounterOp.RECV);
                }
            } else {
                writeRemote(slot, writeRegion, length);
                peer.completions.completeReceive(queue, CompletionOpcode.RECV_RDMA_WITH_IMM, length, pending.immediates[slot],
                        WorkCompletion.FLAG_WITH_IMM, qpNumber, attributes.port.lid(), pending.flags[slot],
                        CompletionCounterOp.REMOTE_RDMA_WRITE);
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
    private Outcome afterResponder(int slot, SimulatedQp peer, CompletionStatus remoteStatus, long length) {
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
        SimulatedMr region = peer.remoteRegion(pending.rkeys[slot], pending.remoteAddresses[slot], length,
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

    private Outcome performRead(int slot, SimulatedQp peer, long length) {
        SimulatedMr region = peer.remoteRegion(pending.rkeys[slot], pending.remoteAddresses[slot], length,
                AccessFlag.REMOTE_READ);
        if (region == null) {
            return remoteAccessError(slot, peer);
        }
        if (!attributes.remotePort.transmit(attributes.port, packets(length, attributes.pathMtu.bytes()), length)) {
            return lost(slot);
        }
        target.clear().add(region.memory(), region.offsetOf(pending.remoteAddresses[slot]), length)
                .copyTo(source, length);
        peer.completions.count(CompletionCounterOp.REMOTE_RDMA_READ, false);
        return complete(slot, CompletionStatus.SUCCESS, length);
    }

    private Outcome performAtomic(int slot, SimulatedQp peer) {
        long address = pending.remoteAddresses[slot];
        if (address % Long.BYTES != 0) {
            return failLocally(slot, CompletionStatus.REM_INV_REQ_ERR);
        }
        SimulatedMr region = peer.remoteRegion(pending.rkeys[slot], address, Long.BYTES, AccessFlag.REMOTE_ATOMIC);
        if (region == null) {
            return remoteAccessError(slot, peer);
        }
        long offset = region.offsetOf(address);
        long original = pending.opcodes[slot] == SendOpcode.ATOMIC_CMP_AND_SWP
                ? (long) LONG.compareAndExchange(region.memory(), offset, pending.compareAdds[slot], pending.swaps[slot])
                : (long) LONG.getAndAdd(region.memory(), offset, pending.compareAdds[slot]);
        attributes.remotePort.transmit(attributes.port, 1, Long.BYTES);
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

    private Outcome executeDatagram(int slot) {
        if (!resolveLocal(slot, source.clear(), false)) {
            return failLocally(slot, CompletionStatus.LOC_PROT_ERR);
        }
        long length = source.total();
        if (length > attributes.port.activeMtuBytes()) {
            return failLocally(slot, CompletionStatus.LOC_LEN_ERR);
        }
        AddressVector av = pending.addressHandles[slot].addressVector();
        SimulatedPort destination = fabric.route(av);
        SimulatedQp peer = fabric.queuePairs().get(pending.remoteQpNumbers[slot]);
        boolean reachable = destination != null && peer != null && peer.type == QueuePairType.UD
                && peer.attributes.port == destination && peer.acceptsIncoming() && peer.attributes.qkey == pending.remoteQkeys[slot];
        if (!reachable || !attributes.port.carries(destination)) {
            return complete(slot, CompletionStatus.SUCCESS, 0);
        }
        tally.add(attributes.port, destination, 1, length);
        if (av.isGlobal()) {
            Gid sourceGid = attributes.port.gids().get(av.globalRoute().sourceGidIndex());
            writeGrh(av, sourceGid, length);
            if (destination.isEthernet()) {
                headers.roceV2(sourceGid.ipv4(), av.globalRoute().destinationGid().ipv4(), 0xC000 | (qpNumber & 0x3FFF));
                steer(destination, peer, length);
            }
        } else {
            grh.fill((byte) 0);
        }
        ReceiveQueue queue = peer.receiveQueue;
        queue.lock().lock();
        try {
            if (!queue.isEmpty()) {
                CompletionStatus status = peer.scatterIntoHead(queue, grhSource.clear().add(grh, 0, GRH_BYTES),
                        target, GRH_BYTES, length);
                if (status == CompletionStatus.SUCCESS) {
                    source.copyTo(target, length);
                    peer.completions.completeReceive(queue, CompletionOpcode.RECV, length + GRH_BYTES, pending.immediates[slot],
                            (av.isGlobal() ? WorkCompletion.FLAG_GRH : 0)
                                    | (pending.opcodes[slot] == SendOpcode.SEND_WITH_IMM ? WorkCompletion.FLAG_WITH_IMM : 0),
                            qpNumber, attributes.port.lid(), pending.flags[slot], CompletionCounterOp.RECV);
                }
            }
        } finally {
            queue.lock().unlock();
        }
        return complete(slot, CompletionStatus.SUCCESS, length);
    }

    /** Fills the 40-byte GRH a UD receiver finds before the payload (IBA 8.3). */
    private void writeGrh(AddressVector av, Gid sourceGid, long payload) {
        int versionClassFlow = (6 << 28) | ((av.globalRoute().trafficClass() & 0xFF) << 20)
                | (av.globalRoute().flowLabel() & 0xFFFFF);
        grh.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 0, versionClassFlow);
        grh.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 4, (short) payload);
        grh.set(ValueLayout.JAVA_BYTE, 6, (byte) 0x1B);
        grh.set(ValueLayout.JAVA_BYTE, 7, (byte) av.globalRoute().hopLimit());
        for (int i = 0; i < Gid.LENGTH; i++) {
            grh.set(ValueLayout.JAVA_BYTE, 8 + i, sourceGid.byteAt(i));
            grh.set(ValueLayout.JAVA_BYTE, 24 + i, av.globalRoute().destinationGid().byteAt(i));
        }
    }

    private Outcome executeRawFrame(int slot) {
        if (!resolveLocal(slot, source.clear(), false)) {
            return failLocally(slot, CompletionStatus.LOC_PROT_ERR);
        }
        int length = (int) source.total();
        source.copyTo(grhSource.clear().add(frameMemory, 0, length), length);
        headers.parse(frame, length);
        if (attributes.port.isActive()) {
            attributes.port.transmitFrame(length);
            for (SimulatedPort destination : fabric.ethernetPorts()) {
                if (destination.isActive()) {
                    steer(destination, null, length);
                }
            }
        }
        return complete(slot, CompletionStatus.SUCCESS, length);
    }

    /**
     * Applies the flows of {@code destination} to {@link #headers}: the first match (by
     * priority) counts the packet and, for a raw frame ({@code datagramTarget} null), delivers
     * it to the flow's QP. For a datagram only flows of its destination QP apply.
     */
    private void steer(SimulatedPort destination, SimulatedQp datagramTarget, long length) {
        for (SimulatedFlow flow : destination.flows()) {
            if ((datagramTarget == null || flow.qp() == datagramTarget) && headers.matches(flow.spec())) {
                flow.counted(length);
                if (datagramTarget == null) {
                    destination.receiveFrame(length);
                    flow.qp().acceptFrame(grhSource.rewind(), target, length);
                }
                return;
            }
        }
    }

    /** A steered raw frame arrives; dropped when no receive is posted, as on a real NIC. */
    private void acceptFrame(SgeCursor frameData, SgeCursor scratch, long length) {
        if (type != QueuePairType.RAW_PACKET || !acceptsIncoming()) {
            return;
        }
        receiveQueue.lock().lock();
        try {
            if (receiveQueue.isEmpty()) {
                return;
            }
            if (scatterIntoHead(receiveQueue, frameData, scratch, length, 0) == CompletionStatus.SUCCESS) {
                completions.completeReceive(receiveQueue, CompletionOpcode.RECV, length, 0, 0, 0, 0, 0, CompletionCounterOp.RECV);
            }
        } finally {
            receiveQueue.lock().unlock();
        }
    }

    // ---------------------------------------------------------------- responder side (receive lock held)

    /**
     * Resolves the head receive WR into {@code into} (the requester's scratch cursor) and
     * copies {@code leading} bytes of {@code from} into it, after checking that
     * {@code leading + following} bytes fit; the caller copies the following bytes. On a bad
     * SGE or a short buffer the WR completes in error here and that status is returned.
     */
    private CompletionStatus scatterIntoHead(ReceiveQueue queue, SgeCursor from, SgeCursor into, long leading,
                                             long following) {
        into.clear();
        for (int i = 0; i < queue.headSgeCount(); i++) {
            long address = queue.headSgeAddress(i);
            long sgeLength = Integer.toUnsignedLong(queue.headSgeLength(i));
            SimulatedMr region = SimulatedMr.byKey(fabric, queue.headSgeLkey(i));
            if (region == null || region.pd() != pd || !region.allows(AccessFlag.LOCAL_WRITE)
                    || !region.covers(address, sgeLength)) {
                return completions.failHeadReceive(queue, CompletionStatus.LOC_PROT_ERR);
            }
            into.add(region.memory(), region.offsetOf(address), sgeLength);
        }
        if (queue.headCapacity() < leading + following) {
            return completions.failHeadReceive(queue, CompletionStatus.LOC_LEN_ERR);
        }
        from.copyTo(into, leading);
        return CompletionStatus.SUCCESS;
    }

    /** The responder's region for {@code rkey}: same PD, in range, with the access the QP and the MR allow. */
    private SimulatedMr remoteRegion(int rkey, long address, long length, AccessFlag needed) {
        SimulatedMr region = SimulatedMr.byKey(fabric, rkey);
        boolean allowed = region != null && region.pd() == pd && region.allows(needed)
                && AccessFlag.isSet(attributes.accessMask, needed) && region.covers(address, length);
        return allowed ? region : null;
    }

    // ---------------------------------------------------------------- requester helpers (send lock held)

    /** Resolves the head WR's local memory: inline bytes, or SGEs checked against lkeys of this PD. */
    private boolean resolveLocal(int slot, SgeCursor into, boolean localWrite) {
        if (pending.inlineLengths[slot] > 0) {
            into.add(pending.inlineData, pending.inlineOffset(slot), pending.inlineLengths[slot]);
            return true;
        }
        for (int i = 0; i < pending.sgeCounts[slot]; i++) {
            int index = pending.sgeIndex(slot, i);
            long address = pending.sgeAddresses[index];
            long length = Integer.toUnsignedLong(pending.sgeLengths[index]);
            SimulatedMr region = SimulatedMr.byKey(fabric, pending.sgeLkeys[index]);
            if (region == null || region.pd() != pd || !region.covers(address, length)
                    || (localWrite && !region.allows(AccessFlag.LOCAL_WRITE))) {
                return false;
            }
            into.add(region.memory(), region.offsetOf(address), length);
        }
        return true;
    }

    /** Completes the head WR (see {@link CompletionDelivery#completeSend}): it waits no more. */
    private Outcome complete(int slot, CompletionStatus status, long length) {
        completions.completeSend(slot, status, length);
        return Outcome.DONE;
    }

    /** A local or transport error on the head WR: it completes in error, the QP enters ERR, the rest flush. */
    private Outcome failLocally(int slot, CompletionStatus status) {
        complete(slot, status, 0);
        STATE.setVolatile(this, QueuePairState.ERR);
        completions.flushAll();
        return Outcome.DONE;
    }

    private static int packets(long length, int mtu) {
        return (int) Math.max(1, (length + mtu - 1) / mtu);
    }

    // ---------------------------------------------------------------- counters and flows

    @Override
    public void attachCompletionCounter(CompCounterHandle counter, int opMask) {
        sendLock.lock();
        try {
            QueuePairState current = state;
            if (current != QueuePairState.RESET && current != QueuePairState.INIT) {
                throw Failures.invalid("ibv_qp_attach_comp_cntr", "QP 0x" + Integer.toHexString(qpNumber) + " is in "
                        + current, "attach completion counters while the QP is in RESET or INIT");
            }
            completions.attach(counter, opMask);
        } finally {
            sendLock.unlock();
        }
    }

    @Override
    public FlowHandle createFlow(FlowSpec spec, CountersHandle counters) {
        if (type != QueuePairType.RAW_PACKET && type != QueuePairType.UD) {
            throw Failures.invalid("ibv_create_flow", "flows steer to RAW_PACKET or UD QPs, not " + type);
        }
        SimulatedPort flowPort = pd.device().port(spec.port());
        if (type == QueuePairType.RAW_PACKET && !flowPort.isEthernet()) {
            throw Failures.invalid("ibv_create_flow", "port " + spec.port() + " is not Ethernet");
        }
        pd.device().checkInjected("ibv_create_flow");
        return new SimulatedFlow(this, flowPort, spec, (SimulatedCounters) counters);
    }

    // ---------------------------------------------------------------- destroy

    @Override
    public void destroy() {
        sendLock.lock();
        try {
            completions.flushAll();
            destroyed = true;
            if (waitingOn != null) {
                waitingOn.forget(this);
            }
            STATE.setVolatile(this, QueuePairState.RESET);
            fabric.queuePairs().remove(qpNumber);
            completions.detachAll();
            pd.device().release(ResourceKind.QUEUE_PAIR);
        } finally {
            sendLock.unlock();
        }
    }
}

package io.rdma.verbs.api;

import io.rdma.verbs.spi.QpHandle;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code struct ibv_qp} (manual §6–7): state transitions, posting, and what a peer needs to
 * connect. Posting to one QP from many threads is safe: the API serializes each queue
 * (§14 leaves that to the caller; here it is not left to luck). The send queue's depth is
 * accounted, unsignaled WRs included, so an overflow is refused with ENOMEM before it
 * reaches the device.
 */
public final class QueuePair extends VerbsResource {

    private final QpHandle handle;
    private final QueuePairOptions options;
    private final QueuePairCapabilities capabilities;
    private final ProtectionDomain pd;
    private final SendQueueDepth sendQueue;
    private final ReentrantLock sendLock = new ReentrantLock();
    private final ReentrantLock receiveLock = new ReentrantLock();

    QueuePair(ProtectionDomain pd, QueuePairOptions options, List<VerbsResource> parents, QpHandle handle) {
        super(ResourceKind.QUEUE_PAIR, pd.context(), handle, parents);
        this.pd = pd;
        this.options = options;
        this.handle = handle;
        this.capabilities = handle.capabilities();
        this.sendQueue = new SendQueueDepth(capabilities.maxSendWr());
        options.sendCq().addSendQueueUser(this);
    }

    public int qpNumber() {
        return handle.qpNumber();
    }

    public QueuePairType type() {
        return options.type();
    }

    /** The capabilities the device granted (at least those requested). */
    public QueuePairCapabilities capabilities() {
        return capabilities;
    }

    public ProtectionDomain protectionDomain() {
        return pd;
    }

    public CompletionQueue sendCompletionQueue() {
        return options.sendCq();
    }

    public CompletionQueue receiveCompletionQueue() {
        return options.recvCq();
    }

    public Optional<SharedReceiveQueue> sharedReceiveQueue() {
        return Optional.ofNullable(options.srq());
    }

    public QueuePairState state() {
        ensureOpen();
        return handle.state();
    }

    /** {@code ibv_query_qp}. */
    public QueuePairAttributes query() {
        ensureOpen();
        return handle.query();
    }

    /** {@code ibv_modify_qp}: the attributes set in {@code attributes} form the mask. */
    public void modify(QueuePairAttributes attributes) {
        sendLock.lock();
        receiveLock.lock();
        try {
            ensureOpen();
            handle.modify(attributes);
            if (attributes.state() == QueuePairState.RESET) {
                sendQueue.clear();
            }
        } finally {
            receiveLock.unlock();
            sendLock.unlock();
        }
    }

    /** RESET → INIT (manual §6.2.1). After it, receives may be posted. */
    public void toInit(ConnectOptions options) {
        modify(options.initAttributes(type()));
    }

    /** INIT → RTR towards {@code remote} (manual §6.2.2). */
    public void toReadyToReceive(QueuePairEndpoint remote, ConnectOptions options) {
        modify(options.readyToReceiveAttributes(type(), remote));
    }

    /** RTR → RTS (manual §6.2.3). */
    public void toReadyToSend(ConnectOptions options) {
        modify(options.readyToSendAttributes(type()));
    }

    /** Any state → ERR: outstanding WRs complete with {@code IBV_WC_WR_FLUSH_ERR}. */
    public void toError() {
        modify(QueuePairAttributes.builder().state(QueuePairState.ERR).build());
    }

    /** Any state → RESET: queues are emptied without completions. */
    public void reset() {
        modify(QueuePairAttributes.builder().state(QueuePairState.RESET).build());
    }

    /**
     * The whole walk RESET → INIT → RTR → RTS in one call (manual §6.2.4). For UD,
     * {@code remote} may be null: datagrams name their destination per WR.
     */
    public void connect(QueuePairEndpoint remote, ConnectOptions options) {
        toInit(options);
        toReadyToReceive(remote, options);
        toReadyToSend(options);
    }

    /** What the peer needs to connect to this QP (manual §11.2), for {@code port} and {@code gidIndex}. */
    public QueuePairEndpoint localEndpoint(int port, int gidIndex, int packetSequenceNumber) {
        ensureOpen();
        PortAttributes attributes = context().queryPort(port);
        Gid gid = attributes.linkLayer() == LinkLayer.ETHERNET || gidIndex > 0
                ? context().queryGid(port, gidIndex) : Gid.ZERO;
        return new QueuePairEndpoint(qpNumber(), attributes.lid(), gid, packetSequenceNumber);
    }

    /**
     * {@code ibv_post_send} of {@code first} and the WRs chained after it, with one doorbell.
     * Errors: EINVAL when the QP is not in RTS or a WR is malformed for this QP type; ENOMEM
     * when the chain does not fit the send queue's free slots (unsignaled WRs hold slots until a
     * later signaled completion is polled). A failed chain names its first unposted WR.
     */
    public void postSend(SendWorkRequest first) {
        sendLock.lock();
        try {
            ensureOpen();
            int count = 0;
            for (SendWorkRequest wr = first; wr != null; wr = wr.next()) {
                count++;
            }
            int free = sendQueue.freeSlots();
            if (free < count) {
                throw new VerbsException("ibv_post_send", Errno.ENOMEM, "send queue of " + describe() + " has "
                        + free + " free slots of " + sendQueue.capacity() + " for a chain of " + count,
                        "unsignaled WRs hold their slots until a later signaled WR completes and is polled "
                                + "(manual §7.1.6): signal every Nth WR and poll the send CQ")
                        .withBadWorkRequest(first.wrId());
            }
            for (SendWorkRequest wr = first; wr != null; wr = wr.next()) {
                sendQueue.record(wr.wrId(), options.signalAll() || wr.isSignaled());
            }
            try {
                handle.postSend(first);
            } catch (VerbsException e) {
                sendQueue.unrecord(count - e.postedWorkRequests());
                throw e;
            } catch (RuntimeException | Error e) {
                // Providers refuse before ringing the doorbell for anything but an errno.
                sendQueue.unrecord(count);
                throw e;
            }
        } finally {
            sendLock.unlock();
        }
    }

    /**
     * {@code ibv_post_recv}: allowed from INIT on (manual §6.2.1); EINVAL in RESET or when the QP
     * takes its receives from an SRQ.
     */
    public void postReceive(ReceiveWorkRequest first) {
        receiveLock.lock();
        try {
            ensureOpen();
            if (options.srq() != null) {
                throw new VerbsException("ibv_post_recv", Errno.EINVAL, describe() + " receives through an SRQ",
                        "post receives to the shared receive queue instead");
            }
            handle.postReceive(first);
        } finally {
            receiveLock.unlock();
        }
    }

    /** Send WRs posted and not yet retired by a polled completion. */
    public int outstandingSends() {
        return sendQueue.outstanding();
    }

    /**
     * {@code ibv_qp_attach_comp_cntr}: {@code counter} counts this QP's completions of
     * {@code ops}. EINVAL unless the QP is in RESET or INIT; EBUSY when {@code ops} overlaps a
     * counter already attached here; ENOTSUP for an op the device cannot count. There is no
     * detach: destroying the QP detaches.
     */
    public void attachCompletionCounter(CompletionCounter counter, Set<CompletionCounterOp> ops) {
        context().lifecycleLock().lock();
        try {
            ensureOpen();
            counter.ensureOpen();
            if (ops.isEmpty()) {
                throw new VerbsException("ibv_qp_attach_comp_cntr", Errno.EINVAL, "op_mask is empty",
                        "name at least one op kind to count");
            }
            handle.attachCompletionCounter(counter.counterHandle(), CompletionCounterOp.mask(ops));
            counter.attached(this);
        } finally {
            context().lifecycleLock().unlock();
        }
    }

    /**
     * {@code ibv_create_flow}: packets matching {@code spec} steer to this QP (RAW_PACKET or UD).
     * {@code counters} (may be null) is bound to the flow; from then on it takes no more static
     * attaches (EBUSY).
     */
    public Flow createFlow(FlowSpec spec, FlowCounters counters) {
        return context().create(() -> {
            ensureOpen();
            if (counters != null) {
                counters.ensureOpen();
            }
            return new Flow(this, spec, counters,
                    handle.createFlow(spec, counters == null ? null : counters.countersHandle()));
        });
    }

    SendQueueDepth sendQueue() {
        return sendQueue;
    }


    @Override
    void destroyHandle() {
        sendLock.lock();
        receiveLock.lock();
        try {
            handle.destroy();
            markClosed();
            options.sendCq().removeSendQueueUser(this);
        } finally {
            receiveLock.unlock();
            sendLock.unlock();
        }
    }

    @Override
    String describe() {
        return type() + " QP 0x" + Integer.toHexString(handle.qpNumber()) + " on " + context().deviceName();
    }
}

package io.rdma.verbs.api;

import io.rdma.verbs.spi.AddressHandleResolver;
import io.rdma.verbs.spi.QpHandle;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_qp} (verbs manual §6–7): state transitions, posting, and what a peer needs to
 * connect. Posting to one QP from many threads is safe: the API serializes each queue
 * (verbs manual §14 leaves that to the caller; here it is not left to luck). The send queue's depth is
 * accounted, unsignaled WRs included, so an overflow is refused with ENOMEM before it
 * reaches the device; {@link #tryPostSend} and {@link #awaitSendRoom} let a poster wait for
 * room instead.
 *
 * <p>Closing it first closes its flows and its connection, then destroys it: outstanding WRs are
 * flushed (verbs manual §6.4) and attached completion counters are detached. Its CQs, SRQ and PD
 * stay open.
 *
 * <p>Thread-safe: posts to the send queue are serialized with each other, posts to the receive
 * queue with each other, and a state change excludes both.
 */
public final class QueuePair extends VerbsResource {

    /** How every provider resolves the address handles of UD sends: shared, so a post allocates nothing. */
    private static final AddressHandleResolver ADDRESS_HANDLES = AddressHandle::providerHandle;

    private final QpHandle handle;
    private final QueuePairOptions options;
    private final QueuePairCapabilities capabilities;
    private final ProtectionDomain pd;
    private final SendQueueDepth sendQueue;
    private final ReentrantLock sendLock = new ReentrantLock();
    private final ReentrantLock receiveLock = new ReentrantLock();
    /**
     * Receive WRs posted and not yet taken by a poll of the receive CQ: written by posters under
     * the receive lock and by the poller, so atomic.
     */
    private final AtomicInteger outstandingReceives = new AtomicInteger();

    QueuePair(ProtectionDomain pd, QueuePairOptions options, List<VerbsResource> parents, QpHandle handle) {
        super(ResourceKind.QUEUE_PAIR, pd.context(), handle, parents);
        this.pd = pd;
        this.options = options;
        this.handle = handle;
        this.capabilities = handle.capabilities();
        this.sendQueue = new SendQueueDepth(capabilities.maxSendWr());
        options.sendCq().sendQueueUsers().add(this);
        if (options.srq() == null) {
            options.recvCq().receiveQueueUsers().add(this);
        }
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

    /** @throws ResourceClosedException when the QP is closed */
    public QueuePairState state() {
        ensureOpen();
        return handle.state();
    }

    /**
     * {@code ibv_query_qp}.
     *
     * @throws VerbsException the errno {@code ibv_query_qp} fails with
     * @throws ResourceClosedException when the QP is closed
     */
    public QueuePairAttributes query() {
        ensureOpen();
        return handle.query();
    }

    /**
     * {@code ibv_modify_qp}: the attributes set in {@code attributes} form the mask.
     *
     * @throws VerbsException EINVAL when the transition is not allowed for this QP type, an
     *         attribute the transition needs is missing, or a value is out of range or above the
     *         device's limits (verbs manual §6.2, §13.3); the errno {@code ibv_modify_qp} fails with
     * @throws ResourceClosedException when the QP is closed
     */
    public void modify(QueuePairAttributes attributes) {
        sendLock.lock();
        receiveLock.lock();
        try {
            ensureOpen();
            handle.modify(attributes);
            if (attributes.state() == QueuePairState.RESET) {
                sendQueue.clear();
                outstandingReceives.set(0);
            }
        } finally {
            receiveLock.unlock();
            sendLock.unlock();
        }
    }

    /**
     * RESET → INIT (verbs manual §6.2.1). After it, receives may be posted.
     *
     * @throws VerbsException as {@link #modify}
     * @throws ResourceClosedException when the QP is closed
     */
    public void toInit(ConnectOptions options) {
        modify(options.initAttributes(type()));
    }

    /**
     * INIT → RTR towards {@code remote} (verbs manual §6.2.2); UD needs no {@code remote}.
     *
     * @throws VerbsException as {@link #modify}
     * @throws ResourceClosedException when the QP is closed
     */
    public void toReadyToReceive(@Nullable QueuePairEndpoint remote, ConnectOptions options) {
        modify(options.readyToReceiveAttributes(type(), remote));
    }

    /**
     * RTR → RTS (verbs manual §6.2.3).
     *
     * @throws VerbsException as {@link #modify}
     * @throws ResourceClosedException when the QP is closed
     */
    public void toReadyToSend(ConnectOptions options) {
        modify(options.readyToSendAttributes(type()));
    }

    /**
     * Any state → ERR: outstanding WRs complete with {@code IBV_WC_WR_FLUSH_ERR}.
     *
     * @throws VerbsException as {@link #modify}
     * @throws ResourceClosedException when the QP is closed
     */
    public void toError() {
        modify(QueuePairAttributes.builder().state(QueuePairState.ERR).build());
    }

    /**
     * Any state → RESET: queues are emptied without completions.
     *
     * @throws VerbsException as {@link #modify}
     * @throws ResourceClosedException when the QP is closed
     */
    public void reset() {
        modify(QueuePairAttributes.builder().state(QueuePairState.RESET).build());
    }

    /**
     * The whole walk RESET → INIT → RTR → RTS in one call (verbs manual §6.2.4). For UD,
     * {@code remote} may be null: datagrams name their destination per WR.
     *
     * @throws VerbsException as {@link #modify}, from the step that failed
     * @throws ResourceClosedException when the QP is closed
     */
    public void connect(@Nullable QueuePairEndpoint remote, ConnectOptions options) {
        toInit(options);
        toReadyToReceive(remote, options);
        toReadyToSend(options);
    }

    /**
     * What the peer needs to connect to this QP (verbs manual §11.2) when it connects with
     * {@code options}: the QP number, the LID and GID of {@code options}' port and GID index (the
     * port's real GID, also at index 0), and {@code options}' send PSN, from which the peer expects
     * this QP's first packet.
     *
     * @throws VerbsException as {@link DeviceContext#queryPort} and {@link DeviceContext#queryGid}
     * @throws ResourceClosedException when the QP or its context is closed
     */
    public QueuePairEndpoint localEndpoint(ConnectOptions options) {
        ensureOpen();
        PortAttributes attributes = context().queryPort(options.port());
        return new QueuePairEndpoint(qpNumber(), attributes.lid(), context().queryGid(options.port(), options
                .gidIndex()),
                options.sendPsn());
    }

    /**
     * {@code ibv_post_send} of {@code first} and the WRs chained after it, with one doorbell.
     * Thread-safe: posts from many threads are serialized.
     *
     * @throws VerbsException EINVAL when the QP is not in RTS or a WR is malformed for this QP
     *         type; ENOMEM when the chain does not fit the send queue's free slots (unsignaled WRs
     *         hold slots until a later signaled completion is polled); any errno the device
     *         returns. A failed chain names its first unposted WR. {@link #tryPostSend} and
     *         {@link #awaitSendRoom} wait for room instead of failing on a full queue.
     * @throws ResourceClosedException when the QP, or an address handle a UD WR names, is closed
     */
    public void postSend(SendWorkRequest first) {
        sendLock.lock();
        try {
            if (!tryPostSend(first)) {
                // Still under the send lock (it is reentrant): these are the free slots that refused the chain.
                throw new VerbsException("ibv_post_send", Errno.ENOMEM, "send queue of " + describe() + " has "
                        + sendQueue.freeSlots() + " free slots of " + sendQueue.capacity() + " for a chain of "
                        + chainLength(first), "unsignaled WRs hold their slots until a later signaled WR completes"
                        + " and is polled (verbs manual §7.1.6): signal every Nth WR and poll the send CQ, or wait for"
                        + " room with tryPostSend and awaitSendRoom").withBadWorkRequest(first.wrId());
            }
        } finally {
            sendLock.unlock();
        }
    }

    /**
     * {@code ibv_post_send} of {@code first} and the WRs chained after it, as {@link #postSend},
     * except that a send queue without room for the whole chain is not an error: nothing is
     * posted and the answer is {@code false}, so a caller can wait for room
     * ({@link #awaitSendRoom}) and try again. Thread-safe: posts from many threads are
     * serialized; another thread may take room this one saw free.
     *
     * @return {@code true} when the whole chain was posted, {@code false} when the send queue's
     *         free slots are fewer than the chain's WRs (nothing was posted)
     * @throws VerbsException ENOMEM when the chain is longer than the whole send queue, which it
     *         could never fit; EINVAL when the QP is not in RTS or a WR is malformed for this QP
     *         type; any errno the device returns. A failed chain names its first unposted WR.
     * @throws ResourceClosedException when the QP, or an address handle a UD WR names, is closed
     */
    public boolean tryPostSend(SendWorkRequest first) {
        sendLock.lock();
        try {
            ensureOpen();
            int count = chainLength(first);
            if (count > sendQueue.capacity()) {
                throw new VerbsException("ibv_post_send", Errno.ENOMEM, "a chain of " + count + " WRs exceeds the "
                        + sendQueue.capacity() + " slots of the whole send queue of " + describe(),
                        "split the chain, or create the QP with a max_send_wr of at least " + count)
                        .withBadWorkRequest(first.wrId());
            }
            if (sendQueue.freeSlots() < count) {
                return false;
            }
            for (SendWorkRequest wr = first; wr != null; wr = wr.next()) {
                sendQueue.record(wr.wrId(), options.signalAll() || wr.isSignaled());
            }
            try {
                handle.postSend(first, ADDRESS_HANDLES);
            } catch (VerbsException e) {
                sendQueue.unrecord(count - e.postedWorkRequests());
                throw e;
            } catch (RuntimeException | Error e) {
                // Providers refuse before ringing the doorbell for anything but an errno.
                sendQueue.unrecord(count);
                throw e;
            }
            return true;
        } finally {
            sendLock.unlock();
        }
    }

    /**
     * Waits until the send queue has at least {@code slots} free slots, or {@code timeout}
     * passes. The thread parks, without spinning, and is woken by whatever frees slots: a poll of
     * the send CQ that retires completed WRs ({@link CompletionQueue#poll}; an unsignaled WR's
     * slot is freed with the next signaled completion after it, verbs manual §7.1.6), or a reset. So
     * another thread must poll the send CQ meanwhile; a thread that polls it itself should poll
     * instead of waiting. Room is not reserved: another poster may take it first, so wait and
     * {@link #tryPostSend} in a loop. Thread-safe; any number of threads may wait, and none holds
     * a lock that posting or polling needs.
     *
     * @return {@code true} when the slots are free, {@code false} when {@code timeout} passed first
     * @throws IllegalArgumentException when {@code slots} is not between 1 and the send queue's
     *         capacity ({@code capabilities().maxSendWr()}), which could never be satisfied
     * @throws ResourceClosedException when the QP is closed, before or while waiting
     * @throws InterruptedException when the thread is interrupted while it waits
     */
    public boolean awaitSendRoom(int slots, Duration timeout) throws InterruptedException {
        ensureOpen();
        if (slots < 1 || slots > sendQueue.capacity()) {
            throw new IllegalArgumentException("cannot wait for " + slots + " free slots in the send queue of "
                    + describe() + ", which has " + sendQueue.capacity() + "; wait for 1 to "
                    + sendQueue.capacity());
        }
        boolean free = sendQueue.awaitFreeSlots(slots, TimeUnit.NANOSECONDS.convert(timeout));
        ensureOpen();
        return free;
    }

    /** The chain's WRs, each checked for what the API can refuse before any slot is taken. */
    private static int chainLength(SendWorkRequest first) {
        int count = 0;
        for (SendWorkRequest wr = first; wr != null; wr = wr.next()) {
            wr.checkInlineFlag("ibv_post_send");
            count++;
        }
        return count;
    }

    /**
     * {@code ibv_post_recv}: allowed from INIT on (verbs manual §6.2.1, §7.2). Thread-safe: posts
     * from many threads are serialized.
     *
     * @throws VerbsException EINVAL in RESET, when the QP takes its receives from an SRQ, or when a WR
     *         has more SGEs than {@code max_recv_sge}; ENOMEM when the receive queue is full; the
     *         errno the device returns. A failed chain names its first unposted WR.
     * @throws ResourceClosedException when the QP is closed
     */
    public void postReceive(ReceiveWorkRequest first) {
        receiveLock.lock();
        try {
            ensureOpen();
            if (options.srq() != null) {
                throw new VerbsException("ibv_post_recv", Errno.EINVAL, describe() + " receives through an SRQ",
                        "post receives to the shared receive queue instead");
            }
            try {
                handle.postReceive(first);
            } catch (VerbsException e) {
                outstandingReceives.addAndGet(e.postedWorkRequests());
                throw e;
            }
            outstandingReceives.addAndGet(receiveChainLength(first));
        } finally {
            receiveLock.unlock();
        }
    }

    private static int receiveChainLength(ReceiveWorkRequest first) {
        int count = 0;
        for (ReceiveWorkRequest wr = first; wr != null; wr = wr.next()) {
            count++;
        }
        return count;
    }

    /**
     * Receive WRs posted to this QP and not yet taken by a poll of its receive CQ, successful or
     * flushed: after {@link #toError()}, the flushes still to be polled. 0 for a QP on an SRQ,
     * and after a reset, which discards posted receives without completions.
     */
    public int outstandingReceives() {
        return outstandingReceives.get();
    }

    /** A poll of the receive CQ took one of this QP's receive completions. */
    void receiveCompleted() {
        outstandingReceives.decrementAndGet();
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
     *
     * @throws VerbsException EINVAL when {@code ops} is empty or the QP is not in RESET or INIT;
     *         EBUSY when {@code ops} overlaps a counter already attached to this QP; ENOTSUP for an op
     *         the device cannot count (ibv_qp_attach_comp_cntr(3))
     * @throws ResourceClosedException when the QP or the counter is closed
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
     *
     * @throws VerbsException EINVAL when the QP is neither RAW_PACKET nor UD or the spec's port is not
     *         Ethernet; the errno {@code ibv_create_flow} fails with
     * @throws ResourceClosedException when the QP, its context or {@code counters} is closed
     */
    public Flow createFlow(FlowSpec spec, @Nullable FlowCounters counters) {
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
            sendQueue.close();
            options.sendCq().sendQueueUsers().remove(this);
            if (options.srq() == null) {
                options.recvCq().receiveQueueUsers().remove(this);
            }
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

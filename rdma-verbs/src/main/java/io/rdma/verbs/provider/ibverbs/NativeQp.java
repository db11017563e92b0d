package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.FlowSpec;
import io.rdma.verbs.api.Mtu;
import io.rdma.verbs.api.QueuePairAttributes;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.provider.ibverbs.generated.ibv_qp;
import io.rdma.verbs.provider.ibverbs.generated.ibv_qp_attr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_qp_cap;
import io.rdma.verbs.provider.ibverbs.generated.ibv_qp_init_attr;
import io.rdma.verbs.provider.ibverbs.generated.rdma_h;
import io.rdma.verbs.provider.support.SoftwareCompletionCounter;
import io.rdma.verbs.spi.AddressHandleResolver;
import io.rdma.verbs.spi.CompletionCounterHandle;
import io.rdma.verbs.spi.CountersHandle;
import io.rdma.verbs.spi.FlowHandle;
import io.rdma.verbs.spi.QpHandle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_qp}. Posting copies the API's work requests into preallocated native
 * arrays and calls the provider's {@code post_send}/{@code post_recv} directly; the posted
 * send WRs are remembered ({@link PostedSends}) until a completion retires them, which is
 * how error completions are attributed and software completion counters counted.
 */
final class NativeQp implements QpHandle {

    private static final CheckedCall CREATE_QP = CheckedCall.bind("ibv_create_qp",
            rdma_h.ibv_create_qp$address(), rdma_h.ibv_create_qp$descriptor());
    private static final CheckedCall DESTROY_QP = CheckedCall.bind("ibv_destroy_qp",
            rdma_h.ibv_destroy_qp$address(), rdma_h.ibv_destroy_qp$descriptor());
    private static final CheckedCall MODIFY_QP = CheckedCall.bind("ibv_modify_qp",
            rdma_h.ibv_modify_qp$address(), rdma_h.ibv_modify_qp$descriptor());
    private static final CheckedCall QUERY_QP = CheckedCall.bind("ibv_query_qp",
            rdma_h.ibv_query_qp$address(), rdma_h.ibv_query_qp$descriptor());

    /** Every attribute {@link QueuePairAttributes} carries, for a full {@code ibv_query_qp}. */
    private static final int QUERY_MASK = rdma_h.IBV_QP_STATE() | rdma_h.IBV_QP_PKEY_INDEX() | rdma_h.IBV_QP_PORT()
            | rdma_h.IBV_QP_ACCESS_FLAGS() | rdma_h.IBV_QP_QKEY() | rdma_h.IBV_QP_PATH_MTU()
            | rdma_h.IBV_QP_DEST_QPN() | rdma_h.IBV_QP_RQ_PSN() | rdma_h.IBV_QP_SQ_PSN() | rdma_h.IBV_QP_AV()
            | rdma_h.IBV_QP_MAX_DEST_RD_ATOMIC() | rdma_h.IBV_QP_MAX_QP_RD_ATOMIC() | rdma_h.IBV_QP_MIN_RNR_TIMER()
            | rdma_h.IBV_QP_TIMEOUT() | rdma_h.IBV_QP_RETRY_CNT() | rdma_h.IBV_QP_RNR_RETRY();

    /** A software completion counter attached to this QP for the op kinds in {@code mask}. */
    private record Attachment(SoftwareCompletionCounter counter, int mask) {
    }

    private final NativeContext context;
    private final MemorySegment qp;
    private final QueuePairType type;
    private final int qpNumber;
    private final QueuePairCapabilities capabilities;
    private final NativeCq sendCq;
    private final NativeCq recvCq;
    /** Where this QP's receives come from when not from its own queue; null otherwise. */
    private final @Nullable NativeSrq srq;
    /** {@code sq_sig_all}: every send WR completes with a CQE, whatever its flags. */
    private final boolean signalAll;
    private final Arena arena = Arena.ofShared();
    private final SendRequestArray sendRequests;
    private final ReceiveRequestArray receiveRequests;
    private final PostedSends postedSends;
    private final PostedSends.Retired countRetired = this::countSend;
    private volatile Attachment[] attachments = new Attachment[0];
    /**
     * Whether the QP was seen in RTS or a later state since this side last moved it to RESET,
     * INIT or RTR. Until then each post asks the device for the state and is refused unless the
     * QP is past RTR, as libibverbs does not promise it: rxe's provider writes the WRs into the
     * send queue before the kernel refuses the doorbell with EINVAL, and they run with the next
     * doorbell in RTS, long after their caller was told they failed and their buffer went to
     * someone else. Once seen, the state is not asked again: only a modify from this side takes a
     * QP back before RTS (the connection manager moves it forward, to RTS on iWARP).
     */
    private volatile boolean pastReadyToReceive;

    private NativeQp(NativeContext context, MemorySegment qp, QueuePairType type, QueuePairCapabilities capabilities,
                     NativeCq sendCq, NativeCq recvCq, @Nullable NativeSrq srq, boolean signalAll) {
        this.context = context;
        this.qp = qp;
        this.type = type;
        this.qpNumber = ibv_qp.qp_num(qp);
        this.capabilities = capabilities;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.srq = srq;
        this.signalAll = signalAll;
        this.sendRequests = new SendRequestArray(arena, type, capabilities);
        this.receiveRequests = new ReceiveRequestArray("ibv_post_recv", arena, capabilities.maxRecvWr(),
                capabilities.maxRecvSge());
        this.postedSends = new PostedSends(capabilities.maxSendWr());
    }

    static NativeQp create(NativeContext context, NativePd pd, QueuePairType type, NativeCq sendCq, NativeCq recvCq,
                           @Nullable NativeSrq srq, QueuePairCapabilities requested, boolean signalAll) {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment init = ibv_qp_init_attr.allocate(scratch);
            ibv_qp_init_attr.send_cq(init, sendCq.segment());
            ibv_qp_init_attr.recv_cq(init, recvCq.segment());
            ibv_qp_init_attr.srq(init, srq == null ? MemorySegment.NULL : srq.segment());
            ibv_qp_init_attr.qp_type(init, type.value());
            ibv_qp_init_attr.sq_sig_all(init, signalAll ? 1 : 0);
            MemorySegment cap = ibv_qp_init_attr.cap(init);
            ibv_qp_cap.max_send_wr(cap, requested.maxSendWr());
            ibv_qp_cap.max_recv_wr(cap, srq == null ? requested.maxRecvWr() : 0);
            ibv_qp_cap.max_send_sge(cap, requested.maxSendSge());
            ibv_qp_cap.max_recv_sge(cap, srq == null ? requested.maxRecvSge() : 0);
            ibv_qp_cap.max_inline_data(cap, requested.maxInlineData());
            MemorySegment qp = CREATE_QP.pointer(type + " QP with " + requested, pd.segment(), init)
                    .reinterpret(ibv_qp.sizeof());
            // ibv_create_qp writes the granted sizes back into init_attr.cap
            QueuePairCapabilities granted = new QueuePairCapabilities(ibv_qp_cap.max_send_wr(cap),
                    ibv_qp_cap.max_recv_wr(cap), ibv_qp_cap.max_send_sge(cap), ibv_qp_cap.max_recv_sge(cap),
                    ibv_qp_cap.max_inline_data(cap));
            NativeQp handle = new NativeQp(context, qp, type, granted, sendCq, recvCq, srq, signalAll);
            sendCq.addUser(handle);
            recvCq.addUser(handle);
            context.register(qp, handle);
            context.census().created(ResourceKind.QUEUE_PAIR);
            return handle;
        }
    }

    MemorySegment segment() {
        return qp;
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
    public void modify(QueuePairAttributes attributes) {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment attr = ibv_qp_attr.allocate(scratch);
            int mask = 0;
            QueuePairState next = attributes.state();
            if (next != null) {
                ibv_qp_attr.qp_state(attr, next.ordinal());
                mask |= rdma_h.IBV_QP_STATE();
                if (!isPastReadyToReceive(next)) {
                    pastReadyToReceive = false; // before the move: no post may slip in once the queue is emptied
                }
            }
            if (attributes.pkeyIndex() != null) {
                ibv_qp_attr.pkey_index(attr, attributes.pkeyIndex().shortValue());
                mask |= rdma_h.IBV_QP_PKEY_INDEX();
            }
            if (attributes.port() != null) {
                ibv_qp_attr.port_num(attr, attributes.port().byteValue());
                mask |= rdma_h.IBV_QP_PORT();
            }
            if (attributes.accessFlags() != null) {
                ibv_qp_attr.qp_access_flags(attr, AccessFlag.mask(attributes.accessFlags()));
                mask |= rdma_h.IBV_QP_ACCESS_FLAGS();
            }
            if (attributes.qkey() != null) {
                ibv_qp_attr.qkey(attr, attributes.qkey());
                mask |= rdma_h.IBV_QP_QKEY();
            }
            if (attributes.pathMtu() != null) {
                ibv_qp_attr.path_mtu(attr, attributes.pathMtu().value());
                mask |= rdma_h.IBV_QP_PATH_MTU();
            }
            if (attributes.destQpNumber() != null) {
                ibv_qp_attr.dest_qp_num(attr, attributes.destQpNumber());
                mask |= rdma_h.IBV_QP_DEST_QPN();
            }
            if (attributes.receivePsn() != null) {
                ibv_qp_attr.rq_psn(attr, attributes.receivePsn());
                mask |= rdma_h.IBV_QP_RQ_PSN();
            }
            if (attributes.sendPsn() != null) {
                ibv_qp_attr.sq_psn(attr, attributes.sendPsn());
                mask |= rdma_h.IBV_QP_SQ_PSN();
            }
            if (attributes.addressVector() != null) {
                AddressVectors.write(attributes.addressVector(), ibv_qp_attr.ah_attr(attr));
                mask |= rdma_h.IBV_QP_AV();
            }
            if (attributes.maxDestRdAtomic() != null) {
                ibv_qp_attr.max_dest_rd_atomic(attr, attributes.maxDestRdAtomic().byteValue());
                mask |= rdma_h.IBV_QP_MAX_DEST_RD_ATOMIC();
            }
            if (attributes.maxRdAtomic() != null) {
                ibv_qp_attr.max_rd_atomic(attr, attributes.maxRdAtomic().byteValue());
                mask |= rdma_h.IBV_QP_MAX_QP_RD_ATOMIC();
            }
            if (attributes.minRnrTimer() != null) {
                ibv_qp_attr.min_rnr_timer(attr, attributes.minRnrTimer().byteValue());
                mask |= rdma_h.IBV_QP_MIN_RNR_TIMER();
            }
            if (attributes.timeout() != null) {
                ibv_qp_attr.timeout(attr, attributes.timeout().byteValue());
                mask |= rdma_h.IBV_QP_TIMEOUT();
            }
            if (attributes.retryCount() != null) {
                ibv_qp_attr.retry_cnt(attr, attributes.retryCount().byteValue());
                mask |= rdma_h.IBV_QP_RETRY_CNT();
            }
            if (attributes.rnrRetry() != null) {
                ibv_qp_attr.rnr_retry(attr, attributes.rnrRetry().byteValue());
                mask |= rdma_h.IBV_QP_RNR_RETRY();
            }
            MODIFY_QP.status(describe() + ", attr_mask 0x" + Integer.toHexString(mask) + " (" + attributes + ")",
                    qp, attr, mask);
            if (next != null && isPastReadyToReceive(next)) {
                pastReadyToReceive = true;
            }
            if (next == QueuePairState.RESET) {
                postedSends.clear();
                receiveRequests.clear();
            }
        }
    }

    @Override
    public QueuePairAttributes query() {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment attr = ibv_qp_attr.allocate(scratch);
            MemorySegment init = ibv_qp_init_attr.allocate(scratch);
            QUERY_QP.status(describe(), qp, attr, QUERY_MASK, init);
            Set<AccessFlag> access = EnumSet.noneOf(AccessFlag.class);
            int flags = ibv_qp_attr.qp_access_flags(attr);
            for (AccessFlag flag : AccessFlag.values()) {
                if (AccessFlag.isSet(flags, flag)) {
                    access.add(flag);
                }
            }
            int mtu = ibv_qp_attr.path_mtu(attr);
            return new QueuePairAttributes(QueuePairState.of(ibv_qp_attr.qp_state(attr)),
                    Short.toUnsignedInt(ibv_qp_attr.pkey_index(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.port_num(attr)),
                    access,
                    ibv_qp_attr.qkey(attr),
                    mtu == 0 ? null : Mtu.of(mtu),
                    ibv_qp_attr.dest_qp_num(attr),
                    ibv_qp_attr.rq_psn(attr),
                    ibv_qp_attr.sq_psn(attr),
                    AddressVectors.read(ibv_qp_attr.ah_attr(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.max_dest_rd_atomic(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.max_rd_atomic(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.min_rnr_timer(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.timeout(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.retry_cnt(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.rnr_retry(attr)));
        }
    }

    @Override
    public QueuePairState state() {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment attr = ibv_qp_attr.allocate(scratch);
            MemorySegment init = ibv_qp_init_attr.allocate(scratch);
            QUERY_QP.status(describe(), qp, attr, rdma_h.IBV_QP_STATE(), init);
            return QueuePairState.of(ibv_qp_attr.qp_state(attr));
        }
    }

    @Override
    public void postSend(SendWorkRequest first, AddressHandleResolver addressHandles) {
        if (!pastReadyToReceive) {
            refuseBeforeReadyToSend(first);
        }
        // fill took the whole chain, or threw: count is its length
        int count = sendRequests.fill(first, addressHandles);
        for (SendWorkRequest wr = first; wr != null; wr = wr.next()) {
            postedSends.record(wr.wrId(), wr.opcode(), signalAll || wr.isSignaled());
        }
        int errno = NativeErrors.ofPost(context.verbs().postSend(qp, sendRequests.head(),
                sendRequests.badRequestSlot()));
        if (errno != 0) {
            int bad = sendRequests.badIndex();
            postedSends.unrecord(count - bad);
            throw NativeErrors.failure("ibv_post_send", errno, describe())
                    .withBadWorkRequest(SendRequestArray.at(first, bad).wrId(), bad);
        }
    }

    /** Throws EINVAL, naming {@code first}, while the device has the QP in RESET, INIT or RTR (verbs manual §7.1). */
    private void refuseBeforeReadyToSend(SendWorkRequest first) {
        QueuePairState current = state();
        if (!isPastReadyToReceive(current)) {
            throw new VerbsException("ibv_post_send", Errno.EINVAL, describe() + " is in " + current
                    + "; sends need RTS", "finish the RESET -> INIT -> RTR -> RTS walk (QueuePair.connect, or a"
                    + " connection's connect or accept) before posting sends").withBadWorkRequest(first.wrId());
        }
        pastReadyToReceive = true;
    }

    private static boolean isPastReadyToReceive(QueuePairState state) {
        return state != QueuePairState.RESET && state != QueuePairState.INIT && state != QueuePairState.RTR;
    }

    @Override
    public void postReceive(ReceiveWorkRequest first) {
        int count = receiveRequests.fill(first);
        int errno = context.verbs().postRecv(qp, receiveRequests.head(), receiveRequests.badRequestSlot());
        if (errno != 0) {
            throw receiveRequests.failure(errno, first, describe());
        }
        receiveRequests.posted(count);
    }

    /** The opcode of the outstanding send WR an error completion with this wr_id belongs to; null when none. */
    @Nullable SendOpcode failedSendOpcode(long wrId) {
        return postedSends.failedOpcode(wrId);
    }

    /** A send completion: retires its WR and the unsignaled WRs before it. */
    void retireSends(long wrId, boolean success) {
        postedSends.retire(wrId, success, countRetired);
    }

    private void countSend(SendOpcode opcode, boolean success) {
        Attachment[] current = attachments;
        if (current.length == 0) {
            return;
        }
        int bit = switch (opcode) {
            case SEND, SEND_WITH_IMM -> CompletionCounterOp.SEND.bit();
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> CompletionCounterOp.RDMA_WRITE.bit();
            case RDMA_READ -> CompletionCounterOp.RDMA_READ.bit();
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> 0;
        };
        count(current, bit, success);
    }

    /**
     * A receive completion: frees its receive queue entry and counts as RECV (an RDMA write
     * with immediate is a remote op software cannot attach).
     */
    void receiveCompleted(CompletionOpcode opcode, boolean success) {
        if (srq == null) {
            receiveRequests.completed();
        } else {
            srq.receiveCompleted();
        }
        Attachment[] current = attachments;
        if (current.length != 0 && opcode == CompletionOpcode.RECV) {
            count(current, CompletionCounterOp.RECV.bit(), success);
        }
    }

    private static void count(Attachment[] current, int bit, boolean success) {
        for (Attachment attachment : current) {
            if ((attachment.mask & bit) != 0) {
                attachment.counter.count(success);
            }
        }
    }

    @Override
    public void attachCompletionCounter(CompletionCounterHandle counter, int opMask) {
        switch (counter) {
            case HardwareCompletionCounter hardware -> hardware.attachTo(qp, opMask, describe());
            case SoftwareCompletionCounter software -> attachSoftware(software, opMask);
            default -> throw new IllegalArgumentException("not a native completion counter: " + counter);
        }
    }

    /** The man page's attach rules, checked here because no device does it for a software counter. */
    private void attachSoftware(SoftwareCompletionCounter counter, int opMask) {
        String verb = "ibv_qp_attach_comp_cntr";
        int unsupported = opMask & ~CompletionCounterOp.mask(CompletionCounters.SOFTWARE_OPS);
        if (unsupported != 0) {
            throw new VerbsException(verb, Errno.ENOTSUP, "software-counted completion counters on "
                    + context.deviceName() + " cannot see " + CompletionCounterOp.fromMask(unsupported)
                    + ": remote reads and writes without immediate complete nothing locally",
                    "count SEND, RECV, RDMA_READ and RDMA_WRITE only");
        }
        QueuePairState state = state();
        if (state != QueuePairState.RESET && state != QueuePairState.INIT) {
            throw new VerbsException(verb, Errno.EINVAL, describe() + " is in " + state,
                    "attach counters while the QP is in RESET or INIT");
        }
        synchronized (this) {
            for (Attachment attachment : attachments) {
                if ((attachment.mask & opMask) != 0) {
                    throw new VerbsException(verb, Errno.EBUSY, describe() + " already has a counter for "
                            + CompletionCounterOp.fromMask(attachment.mask & opMask), null);
                }
            }
            Attachment[] grown = Arrays.copyOf(attachments, attachments.length + 1);
            grown[grown.length - 1] = new Attachment(counter, opMask);
            attachments = grown;
            counter.attached();
        }
    }

    @Override
    public FlowHandle createFlow(FlowSpec spec, @Nullable CountersHandle counters) {
        return NativeFlow.create(context, qp, spec, (NativeFlowCounters) counters);
    }

    @Override
    public void destroy() {
        DESTROY_QP.status(describe(), qp);
        context.unregister(qp);
        sendCq.removeUser(this);
        recvCq.removeUser(this);
        for (Attachment attachment : attachments) {
            attachment.counter.detached();
        }
        attachments = new Attachment[0];
        arena.close();
        context.census().destroyed(ResourceKind.QUEUE_PAIR);
    }

    private String describe() {
        return type + " QP 0x" + Integer.toHexString(qpNumber) + " on " + context.deviceName();
    }
}

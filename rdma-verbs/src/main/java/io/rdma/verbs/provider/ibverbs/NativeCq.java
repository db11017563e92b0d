package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.provider.ibverbs.generated.ibv_cq;
import io.rdma.verbs.provider.ibverbs.generated.ibv_cq_ex;
import io.rdma.verbs.provider.ibverbs.generated.rdma_h;
import io.rdma.verbs.spi.CompletionSink;
import io.rdma.verbs.spi.CqHandle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

import static io.rdma.verbs.provider.ibverbs.DataPathLayout.WC_BYTE_LEN;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.WC_FLAGS;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.WC_IMM_DATA;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.WC_OPCODE;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.WC_PKEY_INDEX;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.WC_QP_NUM;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.WC_SIZE;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.WC_SL;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.WC_SLID;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.WC_SRC_QP;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.WC_STATUS;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.WC_VENDOR_ERR;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.WC_WR_ID;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_cq}, polled into a preallocated {@code ibv_wc} array. Each completion is
 * also shown to the QP it belongs to: a send completion retires that QP's posted WRs through
 * it (counting them on software completion counters), and an error completion, whose
 * opcode the device need not set, is attributed to the send or receive queue by whether its
 * wr_id is still outstanding on the send queue.
 */
final class NativeCq implements CqHandle {

    /** Most completions read per ibv_poll_cq call; a larger batch is filled over several polls. */
    private static final int MAX_POLL = 256;
    private static final CheckedCall DESTROY_CQ = CheckedCall.bind("ibv_destroy_cq",
            rdma_h.ibv_destroy_cq$address(), rdma_h.ibv_destroy_cq$descriptor());
    private static final CompletionOpcode[] OPCODES = new CompletionOpcode[256];

    static {
        for (CompletionOpcode opcode : CompletionOpcode.values()) {
            OPCODES[opcode.value()] = opcode;
        }
    }

    private final NativeContext context;
    private final MemorySegment cq;
    /** The completion channel the CQ signals, or null. */
    private final @Nullable NativeChannel channel;
    private final int capacity;
    private final Arena arena = Arena.ofShared();
    private final @Nullable MemorySegment completions;
    private final int pollLimit;
    /** Set for a CQ created with completion timestamps ({@code ibv_cq_ex}); null for a plain {@code ibv_cq}. */
    private final @Nullable ExtendedCompletionPoller extended;
    /** Set by the async event thread on IBV_EVENT_CQ_ERR: completions were lost, polling fails from then on. */
    private volatile boolean overrun;
    /** QPs whose send or receive completions land here; copy-on-write, read on every poll. */
    private volatile NativeQp[] users = new NativeQp[0];

    /**
     * A plain CQ, or with {@code extended} an {@code ibv_cq_ex} (which starts with an {@code ibv_cq}),
     * created on {@code channel} (null for none).
     */
    NativeCq(NativeContext context, MemorySegment cq, @Nullable NativeChannel channel, boolean extended) {
        this.context = context;
        this.cq = cq;
        this.channel = channel;
        this.capacity = ibv_cq.cqe(cq);
        this.pollLimit = Math.max(1, Math.min(capacity, MAX_POLL));
        this.completions = extended ? null : arena.allocate(WC_SIZE * pollLimit, 8);
        this.extended = extended ? new ExtendedCompletionPoller(cq.reinterpret(ibv_cq_ex.sizeof()), arena) : null;
        context.register(cq, this);
        if (channel != null) {
            channel.attach(this);
        }
        context.census().created(ResourceKind.COMPLETION_QUEUE);
    }

    MemorySegment segment() {
        return cq;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    String deviceName() {
        return context.deviceName();
    }

    /** {@code IBV_EVENT_CQ_ERR} arrived for this CQ. */
    void overran() {
        overrun = true;
    }

    @Override
    public int poll(CompletionSink sink, int max) {
        if (overrun) {
            throw new VerbsException("ibv_poll_cq", Errno.EOVERFLOW, "the CQ of " + context.deviceName() + " ("
                    + capacity + " entries) overran and lost completions (IBV_EVENT_CQ_ERR)",
                    "destroy it and its QPs; give the new CQ at least as many entries as WRs can be outstanding "
                            + "on all its QPs");
        }
        if (extended != null) {
            return extended.poll(this, sink, max);
        }
        // a CQ that is not extended has its ibv_wc array (the constructor)
        MemorySegment completions = Objects.requireNonNull(this.completions);
        int filled = 0;
        while (filled < max) {
            int want = Math.min(max - filled, pollLimit);
            int got = context.verbs().pollCq(cq, want, completions);
            if (got < 0) {
                throw new VerbsException("ibv_poll_cq", Errno.EIO, "the CQ of " + context.deviceName()
                        + " reports an error (" + got + "), probably an overrun", "give the CQ more entries "
                        + "than the WRs that can be outstanding on all its QPs");
            }
            for (int i = 0; i < got; i++) {
                fill(sink, filled + i, completions, i * WC_SIZE);
            }
            filled += got;
            if (got < want) {
                break;
            }
        }
        return filled;
    }

    private void fill(CompletionSink sink, int index, MemorySegment completions, long at) {
        record(sink, index, completions.get(JAVA_LONG, at + WC_WR_ID), completions.get(JAVA_INT, at + WC_STATUS),
                completions.get(JAVA_INT, at + WC_OPCODE), completions.get(JAVA_INT, at + WC_VENDOR_ERR),
                completions.get(JAVA_INT, at + WC_BYTE_LEN), completions.get(JAVA_INT, at + WC_IMM_DATA),
                completions.get(JAVA_INT, at + WC_QP_NUM), completions.get(JAVA_INT, at + WC_SRC_QP),
                completions.get(JAVA_INT, at + WC_FLAGS), completions.get(JAVA_SHORT, at + WC_PKEY_INDEX),
                completions.get(JAVA_SHORT, at + WC_SLID), completions.get(JAVA_BYTE, at + WC_SL), -1);
    }

    /**
     * Puts one completion, as the device reported it, at {@code index} of {@code sink}, after
     * showing it to its QP. {@code immData} is as on the wire (big-endian); {@code timestamp} is
     * -1 when the CQ has none.
     */
    void record(CompletionSink sink, int index, long wrId, int rawStatus, int rawOpcode, int vendorError,
                int byteLength, int immData, int qpNumber, int sourceQp, int flags, int pkeyIndex, int sourceLid,
                byte serviceLevel, long timestamp) {
        CompletionStatus status = CompletionStatus.of(rawStatus);
        NativeQp qp = user(qpNumber);
        CompletionOpcode opcode;
        if (status.isSuccess()) {
            opcode = OPCODES[rawOpcode & 0xff];
            if (opcode == null) {
                opcode = rawOpcode >= CompletionOpcode.RECV.value() ? CompletionOpcode.RECV : CompletionOpcode.SEND;
            }
            if (qp != null) {
                if (opcode.isSendQueue()) {
                    qp.retireSends(wrId, true);
                } else {
                    qp.receiveCompleted(opcode, true);
                }
            }
        } else {
            SendOpcode sent = qp == null ? null : qp.failedSendOpcode(wrId);
            if (qp != null && sent != null) {
                opcode = sent.completionOpcode();
                qp.retireSends(wrId, false);
            } else {
                opcode = CompletionOpcode.RECV;
                if (qp != null) {
                    qp.receiveCompleted(opcode, false);
                }
            }
        }
        // imm_data is big-endian on the wire; the API speaks host values
        sink.put(index, wrId, status, opcode, vendorError, byteLength, Integer.reverseBytes(immData), qpNumber,
                sourceQp, flags, Short.toUnsignedInt((short) pkeyIndex), Short.toUnsignedInt((short) sourceLid),
                Byte.toUnsignedInt(serviceLevel), timestamp);
    }

    private @Nullable NativeQp user(int qpNumber) {
        for (NativeQp qp : users) {
            if (qp.qpNumber() == qpNumber) {
                return qp;
            }
        }
        return null;
    }

    synchronized void addUser(NativeQp qp) {
        if (user(qp.qpNumber()) == null) {
            NativeQp[] grown = Arrays.copyOf(users, users.length + 1);
            grown[grown.length - 1] = qp;
            users = grown;
        }
    }

    synchronized void removeUser(NativeQp qp) {
        users = Arrays.stream(users).filter(user -> user != qp).toArray(NativeQp[]::new);
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        int errno = context.verbs().reqNotifyCq(cq, solicitedOnly);
        if (errno != 0) {
            throw NativeErrors.failure("ibv_req_notify_cq", errno, "CQ of " + context.deviceName());
        }
    }

    @Override
    public void acknowledgeEvents(int count) {
        rdma_h.ibv_ack_cq_events(cq, count);
    }

    @Override
    public void destroy() {
        DESTROY_CQ.status("a QP or an unacknowledged event may still use it", cq);
        context.unregister(cq);
        if (channel != null) {
            channel.detach(this);
        }
        arena.close();
        context.census().destroyed(ResourceKind.COMPLETION_QUEUE);
    }
}

package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.provider.ibverbs.generated.ibv_cq_ex;
import io.rdma.verbs.provider.ibverbs.generated.ibv_poll_cq_attr;
import io.rdma.verbs.spi.CompletionSink;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Polls an {@code ibv_cq_ex} (a CQ created with completion timestamps) through its own
 * function pointers, as the inline {@code ibv_start_poll}/{@code ibv_next_poll}/
 * {@code ibv_end_poll} and {@code ibv_wc_read_*} do: status and wr_id are fields of the CQ,
 * everything else comes from a read function. All calls are short and non-blocking, so
 * they are bound {@code critical}; nothing is allocated per poll.
 */
final class ExtendedCompletionPoller {

    private static final int ENOENT = 2;

    private static final MethodHandle START_POLL = NativeDowncalls.START_POLL.handle();
    private static final MethodHandle NEXT_POLL = NativeDowncalls.CQ_EX_INT.handle();
    private static final MethodHandle END_POLL = NativeDowncalls.CQ_EX_VOID.handle();
    private static final MethodHandle READ_INT = NativeDowncalls.CQ_EX_INT.handle();
    private static final MethodHandle READ_BYTE = NativeDowncalls.CQ_EX_BYTE.handle();
    private static final MethodHandle READ_LONG = NativeDowncalls.CQ_EX_LONG.handle();

    private static final long STATUS = ibv_cq_ex.status$offset();
    private static final long WR_ID = ibv_cq_ex.wr_id$offset();

    private final MemorySegment cq;
    private final MemorySegment pollAttr;
    private final MemorySegment startPoll;
    private final MemorySegment nextPoll;
    private final MemorySegment endPoll;
    private final MemorySegment readOpcode;
    private final MemorySegment readVendorErr;
    private final MemorySegment readByteLen;
    private final MemorySegment readImmData;
    private final MemorySegment readQpNum;
    private final MemorySegment readSrcQp;
    private final MemorySegment readWcFlags;
    private final MemorySegment readSlid;
    private final MemorySegment readSl;
    private final MemorySegment readCompletionTs;

    ExtendedCompletionPoller(MemorySegment cqEx, Arena arena) {
        this.cq = cqEx;
        this.pollAttr = ibv_poll_cq_attr.allocate(arena);
        this.startPoll = ibv_cq_ex.start_poll(cqEx);
        this.nextPoll = ibv_cq_ex.next_poll(cqEx);
        this.endPoll = ibv_cq_ex.end_poll(cqEx);
        this.readOpcode = ibv_cq_ex.read_opcode(cqEx);
        this.readVendorErr = ibv_cq_ex.read_vendor_err(cqEx);
        this.readByteLen = ibv_cq_ex.read_byte_len(cqEx);
        this.readImmData = ibv_cq_ex.read_imm_data(cqEx);
        this.readQpNum = ibv_cq_ex.read_qp_num(cqEx);
        this.readSrcQp = ibv_cq_ex.read_src_qp(cqEx);
        this.readWcFlags = ibv_cq_ex.read_wc_flags(cqEx);
        this.readSlid = ibv_cq_ex.read_slid(cqEx);
        this.readSl = ibv_cq_ex.read_sl(cqEx);
        this.readCompletionTs = ibv_cq_ex.read_completion_ts(cqEx);
    }

    /** Writes up to {@code max} completions into {@code sink} through {@code owner}; returns how many. */
    int poll(NativeCq owner, CompletionSink sink, int max) {
        try {
            int rc = (int) START_POLL.invokeExact(startPoll, cq, pollAttr);
            if (rc == ENOENT) {
                return 0;
            }
            if (rc != 0) {
                throw NativeErrors.failure("ibv_start_poll", rc, "CQ of " + owner.deviceName());
            }
            int filled = 0;
            try {
                while (true) {
                    owner.record(sink, filled, cq.get(JAVA_LONG, WR_ID), cq.get(JAVA_INT, STATUS),
                            (int) READ_INT.invokeExact(readOpcode, cq),
                            (int) READ_INT.invokeExact(readVendorErr, cq),
                            (int) READ_INT.invokeExact(readByteLen, cq),
                            (int) READ_INT.invokeExact(readImmData, cq),
                            (int) READ_INT.invokeExact(readQpNum, cq),
                            (int) READ_INT.invokeExact(readSrcQp, cq),
                            (int) READ_INT.invokeExact(readWcFlags, cq),
                            0,
                            (int) READ_INT.invokeExact(readSlid, cq),
                            (byte) READ_BYTE.invokeExact(readSl, cq),
                            (long) READ_LONG.invokeExact(readCompletionTs, cq));
                    filled++;
                    if (filled == max) {
                        return filled;
                    }
                    rc = (int) NEXT_POLL.invokeExact(nextPoll, cq);
                    if (rc == ENOENT) {
                        return filled;
                    }
                    if (rc != 0) {
                        throw NativeErrors.failure("ibv_next_poll", rc, "CQ of " + owner.deviceName());
                    }
                }
            } finally {
                END_POLL.invokeExact(endPoll, cq);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}

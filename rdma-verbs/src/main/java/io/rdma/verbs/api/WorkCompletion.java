package io.rdma.verbs.api;

/**
 * {@code struct ibv_wc} (verbs manual §5.3), one slot of a {@link CompletionBatch}, overwritten by
 * each poll. Providers fill it through the batch's {@link io.rdma.verbs.spi.CompletionSink};
 * applications read it.
 *
 * <p>Not thread-safe: the next poll into its batch overwrites it; copy what another thread needs.
 */
public final class WorkCompletion {

    /** {@code IBV_WC_GRH}: the first 40 bytes of a UD receive buffer hold a valid GRH. */
    public static final int FLAG_GRH = 1;
    /** {@code IBV_WC_WITH_IMM}: {@link #immediateData()} is valid. */
    public static final int FLAG_WITH_IMM = 1 << 1;

    private long wrId;
    private CompletionStatus status = CompletionStatus.SUCCESS;
    private CompletionOpcode opcode = CompletionOpcode.SEND;
    private int vendorError;
    private int byteLength;
    private int immediateData;
    private int qpNumber;
    private int sourceQpNumber;
    private int flags;
    private int pkeyIndex;
    private int sourceLid;
    private int serviceLevel;
    private long completionTimestamp = -1;

    /** Filled by the provider while polling. {@code completionTimestamp} is -1 when not requested. */
    void set(long wrId, CompletionStatus status, CompletionOpcode opcode, int vendorError, int byteLength,
             int immediateData, int qpNumber, int sourceQpNumber, int flags, int pkeyIndex, int sourceLid,
             int serviceLevel, long completionTimestamp) {
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        this.vendorError = vendorError;
        this.byteLength = byteLength;
        this.immediateData = immediateData;
        this.qpNumber = qpNumber;
        this.sourceQpNumber = sourceQpNumber;
        this.flags = flags;
        this.pkeyIndex = pkeyIndex;
        this.sourceLid = sourceLid;
        this.serviceLevel = serviceLevel;
        this.completionTimestamp = completionTimestamp;
    }

    public long wrId() { return wrId; }
    public CompletionStatus status() { return status; }
    public boolean isSuccess() { return status == CompletionStatus.SUCCESS; }
    /** Valid for successful completions; for errors it tells which queue the WR came from. */
    public CompletionOpcode opcode() { return opcode; }
    public int vendorError() { return vendorError; }
    /** Bytes received (receive completions; UD includes the 40-byte GRH area). */
    /** {@code byte_len}, a u32: up to 2^31 on rxe ({@code max_msg_sz} 0x80000000), so read unsigned. */
    public long byteLength() { return Integer.toUnsignedLong(byteLength); }
    public int immediateData() { return immediateData; }
    public boolean hasImmediateData() { return (flags & FLAG_WITH_IMM) != 0; }
    public boolean hasGrh() { return (flags & FLAG_GRH) != 0; }
    public int qpNumber() { return qpNumber; }
    public int sourceQpNumber() { return sourceQpNumber; }
    public int flags() { return flags; }
    public int pkeyIndex() { return pkeyIndex; }
    public int sourceLid() { return sourceLid; }
    public int serviceLevel() { return serviceLevel; }
    /** Device clock at completion (ns for the simulated fabric); -1 without {@code completionTimestamps}. */
    public long completionTimestamp() { return completionTimestamp; }

    @Override
    public String toString() {
        return "WorkCompletion[wrId=" + wrId + ", status=" + status + ", opcode=" + opcode + ", byteLength="
                + byteLength + ", qp=" + qpNumber + (hasImmediateData() ? ", imm=" + immediateData : "") + "]";
    }
}

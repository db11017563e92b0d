package io.rdma.verbs.api;

/**
 * {@code enum ibv_wc_status} (verbs manual §5.3), in numeric order.
 *
 * <p>Immutable, so thread-safe.
 */
public enum CompletionStatus {
    SUCCESS, LOC_LEN_ERR, LOC_QP_OP_ERR, LOC_EEC_OP_ERR, LOC_PROT_ERR, WR_FLUSH_ERR, MW_BIND_ERR,
    BAD_RESP_ERR, LOC_ACCESS_ERR, REM_INV_REQ_ERR, REM_ACCESS_ERR, REM_OP_ERR, RETRY_EXC_ERR,
    RNR_RETRY_EXC_ERR, LOC_RDD_VIOL_ERR, REM_INV_RD_REQ_ERR, REM_ABORT_ERR, INV_EECN_ERR,
    INV_EEC_STATE_ERR, FATAL_ERR, RESP_TIMEOUT_ERR, GENERAL_ERR;

    private static final CompletionStatus[] BY_VALUE = values();

    /** The {@code ibv_wc_status} number of {@code value}; a number libibverbs may add later reads as GENERAL_ERR. */
    public static CompletionStatus of(int value) {
        return value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : GENERAL_ERR;
    }

    /** Its {@code ibv_wc_status} number, as {@code ibv_wc_status_str} and the verbs manual's table use it. */
    public int value() {
        return ordinal();
    }

    public boolean isSuccess() {
        return this == SUCCESS;
    }
}

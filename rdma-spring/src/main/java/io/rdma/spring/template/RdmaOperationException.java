package io.rdma.spring.template;

import io.rdma.verbs.api.CompletionStatus;

/** An operation of the {@link RdmaTemplate} completed with an error status ({@code ibv_wc_status}). */
public class RdmaOperationException extends RuntimeException {

    private final CompletionStatus status;
    private final int vendorError;

    public RdmaOperationException(String operation, String queuePair, CompletionStatus status, int vendorError) {
        super(operation + " on queue pair '" + queuePair + "' completed with " + status
                + (status == CompletionStatus.WR_FLUSH_ERR ? " (the queue pair was flushed: it failed or is stopping)"
                : "") + (vendorError != 0 ? ", vendor error 0x" + Integer.toHexString(vendorError) : ""));
        this.status = status;
        this.vendorError = vendorError;
    }

    public CompletionStatus status() {
        return status;
    }

    public int vendorError() {
        return vendorError;
    }
}

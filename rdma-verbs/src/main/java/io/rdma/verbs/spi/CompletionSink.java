package io.rdma.verbs.spi;

import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionStatus;

/** Where {@link CqHandle#poll} writes the completions it takes: the batch the application polls into. */
public interface CompletionSink {

    /** Completions the sink holds at most. */
    int capacity();

    /**
     * Writes completion {@code index} of the poll under way ({@code struct ibv_wc}'s fields, the
     * immediate data in host order). {@code completionTimestamp} is -1 when the CQ has none.
     * Must not allocate.
     */
    void put(int index, long wrId, CompletionStatus status, CompletionOpcode opcode, int vendorError, int byteLength,
             int immediateData, int qpNumber, int sourceQpNumber, int flags, int pkeyIndex, int sourceLid,
             int serviceLevel, long completionTimestamp);
}

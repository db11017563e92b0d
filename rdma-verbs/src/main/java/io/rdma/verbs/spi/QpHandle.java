package io.rdma.verbs.spi;

import io.rdma.verbs.api.FlowSpec;
import io.rdma.verbs.api.QueuePairAttributes;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendWorkRequest;

import org.jspecify.annotations.Nullable;

/** {@code struct ibv_qp}. Posts are serialized by the API, one poster per queue at a time. */
public interface QpHandle {

    int qpNumber();

    QueuePairCapabilities capabilities();

    /** {@code ibv_modify_qp} with the attributes that are set. */
    void modify(QueuePairAttributes attributes);

    /** {@code ibv_query_qp}, every attribute populated. */
    QueuePairAttributes query();

    QueuePairState state();

    /**
     * {@code ibv_post_send} of the chain starting at {@code first}; a UD WR's address handle is
     * found through {@code addressHandles}. On failure throws a
     * {@link io.rdma.verbs.api.VerbsException} naming the first WR not posted; the WRs before
     * it were posted. Must not allocate on success.
     */
    void postSend(SendWorkRequest first, AddressHandleResolver addressHandles);

    /** {@code ibv_post_recv}, same contract as {@link #postSend}. */
    void postReceive(ReceiveWorkRequest first);

    /** {@code ibv_qp_attach_comp_cntr} with an {@code op_mask} of {@link io.rdma.verbs.api.CompletionCounterOp} bits. */
    void attachCompletionCounter(CompletionCounterHandle counter, int opMask);

    /** {@code ibv_create_flow} on this QP; {@code counters} (may be null) is bound to the new flow. */
    FlowHandle createFlow(FlowSpec spec, @Nullable CountersHandle counters);

    /**
     * {@code ibv_destroy_qp}. The verbs manual says outstanding WRs are flushed; the simulated fabric
     * writes those {@code IBV_WC_WR_FLUSH_ERR} completions to CQs that are still open, while
     * hardware may discard them with the QP (mlx5 cleans them from the CQ), so an application
     * that needs its flushes moves the QP to ERR and drains before destroying it.
     */
    void destroy();
}

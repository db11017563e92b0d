package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.provider.ibverbs.generated.ibv_qp_cap;
import io.rdma.verbs.provider.ibverbs.generated.ibv_qp_init_attr;
import io.rdma.verbs.provider.ibverbs.generated.rdma_h;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The most inline data an RC QP of this device accepts. {@code ibv_query_device} does not
 * report it, so it is found once per context the way applications find it: by creating
 * throw-away QPs (binary search on {@code max_inline_data}), destroyed at once.
 */
final class InlineLimitProbe {

    /** No device inlines more than this; the search starts below it. */
    private static final int UPPER_BOUND = 1 << 16;

    private InlineLimitProbe() {
    }

    /** The largest accepted {@code max_inline_data}, 0 when none is accepted or the probe QPs cannot be made. */
    static int largestInlineData(MemorySegment context) {
        MemorySegment pd = rdma_h.ibv_alloc_pd(context);
        if (pd.address() == 0) {
            return 0;
        }
        MemorySegment cq = rdma_h.ibv_create_cq(context, 1, MemorySegment.NULL, MemorySegment.NULL, 0);
        try {
            if (cq.address() == 0) {
                return 0;
            }
            int accepted = 0;
            int refused = UPPER_BOUND + 1;
            while (refused - accepted > 1) {
                int candidate = accepted + (refused - accepted) / 2;
                if (accepts(pd, cq, candidate)) {
                    accepted = candidate;
                } else {
                    refused = candidate;
                }
            }
            return accepted;
        } finally {
            if (cq.address() != 0) {
                rdma_h.ibv_destroy_cq(cq);
            }
            rdma_h.ibv_dealloc_pd(pd);
        }
    }

    private static boolean accepts(MemorySegment pd, MemorySegment cq, int inlineData) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment init = ibv_qp_init_attr.allocate(arena);
            ibv_qp_init_attr.send_cq(init, cq);
            ibv_qp_init_attr.recv_cq(init, cq);
            ibv_qp_init_attr.qp_type(init, QueuePairType.RC.value());
            MemorySegment cap = ibv_qp_init_attr.cap(init);
            ibv_qp_cap.max_send_wr(cap, 1);
            ibv_qp_cap.max_recv_wr(cap, 1);
            ibv_qp_cap.max_send_sge(cap, 1);
            ibv_qp_cap.max_recv_sge(cap, 1);
            ibv_qp_cap.max_inline_data(cap, inlineData);
            MemorySegment qp = rdma_h.ibv_create_qp(pd, init);
            if (qp.address() == 0) {
                return false;
            }
            rdma_h.ibv_destroy_qp(qp);
            return true;
        }
    }
}

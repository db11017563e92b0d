package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.SharedReceiveQueueAttributes;
import io.rdma.verbs.provider.ibverbs.generated.ibv_srq;
import io.rdma.verbs.provider.ibverbs.generated.ibv_srq_attr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_srq_init_attr;
import io.rdma.verbs.provider.ibverbs.generated.rdma_h;
import io.rdma.verbs.spi.SrqHandle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** {@code struct ibv_srq}, posted through {@code ibv_context.ops.post_srq_recv} from preallocated WRs. */
final class NativeSrq implements SrqHandle {

    private static final CheckedCall CREATE_SRQ = CheckedCall.bind("ibv_create_srq",
            rdma_h.ibv_create_srq$address(), rdma_h.ibv_create_srq$descriptor());
    private static final CheckedCall DESTROY_SRQ = CheckedCall.bind("ibv_destroy_srq",
            rdma_h.ibv_destroy_srq$address(), rdma_h.ibv_destroy_srq$descriptor());
    private static final CheckedCall MODIFY_SRQ = CheckedCall.bind("ibv_modify_srq",
            rdma_h.ibv_modify_srq$address(), rdma_h.ibv_modify_srq$descriptor());
    private static final CheckedCall QUERY_SRQ = CheckedCall.bind("ibv_query_srq",
            rdma_h.ibv_query_srq$address(), rdma_h.ibv_query_srq$descriptor());

    private final NativeContext context;
    private final MemorySegment srq;
    private final Arena arena = Arena.ofShared();
    private final ReceiveRequestArray requests;
    /** The {@code max_wr} ibv_create_srq granted, which is the depth enforced (rxe's query reports its ring size). */
    private final int grantedMaxWr;

    private NativeSrq(NativeContext context, MemorySegment srq, SharedReceiveQueueAttributes granted) {
        this.context = context;
        this.srq = srq;
        this.requests = new ReceiveRequestArray("ibv_post_srq_recv", arena, granted.maxWr(), granted.maxSge());
        this.grantedMaxWr = granted.maxWr();
        context.register(srq, this);
        context.census().created(ResourceKind.SHARED_RECEIVE_QUEUE);
    }

    static NativeSrq create(NativeContext context, NativePd pd, SharedReceiveQueueAttributes attributes) {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment init = ibv_srq_init_attr.allocate(scratch);
            MemorySegment attr = ibv_srq_init_attr.attr(init);
            ibv_srq_attr.max_wr(attr, attributes.maxWr());
            ibv_srq_attr.max_sge(attr, attributes.maxSge());
            ibv_srq_attr.srq_limit(attr, attributes.limit());
            MemorySegment srq = CREATE_SRQ.pointer(String.valueOf(attributes), pd.segment(), init)
                    .reinterpret(ibv_srq.sizeof());
            // ibv_create_srq writes the granted sizes back into init_attr.attr
            return new NativeSrq(context, srq, new SharedReceiveQueueAttributes(ibv_srq_attr.max_wr(attr),
                    ibv_srq_attr.max_sge(attr), attributes.limit()));
        }
    }

    MemorySegment segment() {
        return srq;
    }

    @Override
    public void postReceive(ReceiveWorkRequest first) {
        int count = requests.fill(first);
        int errno = context.verbs().postSrqRecv(srq, requests.head(), requests.badRequestSlot());
        if (errno != 0) {
            throw requests.failure(errno, first, "SRQ on " + context.deviceName());
        }
        requests.posted(count);
    }

    /** A receive taken from this SRQ completed on one of its QPs. */
    void receiveCompleted() {
        requests.completed();
    }

    @Override
    public void modifyLimit(int limit) {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment attr = ibv_srq_attr.allocate(scratch);
            ibv_srq_attr.srq_limit(attr, limit);
            MODIFY_SRQ.status("srq_limit " + limit, srq, attr, rdma_h.IBV_SRQ_LIMIT());
        }
    }

    @Override
    public SharedReceiveQueueAttributes query() {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment attr = ibv_srq_attr.allocate(scratch);
            QUERY_SRQ.status(null, srq, attr);
            return new SharedReceiveQueueAttributes(Math.min(grantedMaxWr, ibv_srq_attr.max_wr(attr)),
                    ibv_srq_attr.max_sge(attr), ibv_srq_attr.srq_limit(attr));
        }
    }

    @Override
    public void destroy() {
        DESTROY_SRQ.status("a QP may still use it", srq);
        context.unregister(srq);
        arena.close();
        context.census().destroyed(ResourceKind.SHARED_RECEIVE_QUEUE);
    }
}

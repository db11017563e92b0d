package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.provider.ibverbs.generated.ibv_mr;
import io.rdma.verbs.provider.ibverbs.generated.rdma_h;
import io.rdma.verbs.spi.MrHandle;

import java.lang.foreign.MemorySegment;

/** {@code struct ibv_mr}; the keys are read once, they never change. */
final class NativeMr implements MrHandle {

    private static final CheckedCall DEREG_MR = CheckedCall.bind("ibv_dereg_mr",
            rdma_h.ibv_dereg_mr$address(), rdma_h.ibv_dereg_mr$descriptor());

    private final NativeContext context;
    private final MemorySegment mr;
    private final int lkey;
    private final int rkey;

    NativeMr(NativeContext context, MemorySegment mr) {
        this.context = context;
        this.mr = mr.reinterpret(ibv_mr.sizeof());
        this.lkey = ibv_mr.lkey(this.mr);
        this.rkey = ibv_mr.rkey(this.mr);
        context.census().created(ResourceKind.MEMORY_REGION);
    }

    @Override
    public int lkey() {
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public void destroy() {
        DEREG_MR.status("lkey 0x" + Integer.toHexString(lkey), mr);
        context.census().destroyed(ResourceKind.MEMORY_REGION);
    }
}

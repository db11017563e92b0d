package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.provider.ibverbs.generated.rdma_h;
import io.rdma.verbs.spi.AhHandle;

import java.lang.foreign.MemorySegment;

/** {@code struct ibv_ah}: UD sends name it by address. */
final class NativeAh implements AhHandle {

    private static final CheckedCall DESTROY_AH = CheckedCall.bind("ibv_destroy_ah",
            rdma_h.ibv_destroy_ah$address(), rdma_h.ibv_destroy_ah$descriptor());

    private final NativeContext context;
    private final MemorySegment ah;

    NativeAh(NativeContext context, MemorySegment ah) {
        this.context = context;
        this.ah = ah;
        context.census().created(ResourceKind.ADDRESS_HANDLE);
    }

    long address() {
        return ah.address();
    }

    @Override
    public void destroy() {
        DESTROY_AH.status(null, ah);
        context.census().destroyed(ResourceKind.ADDRESS_HANDLE);
    }
}

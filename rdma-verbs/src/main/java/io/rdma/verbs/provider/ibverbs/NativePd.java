package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.AddressVector;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.SharedReceiveQueueAttributes;
import io.rdma.verbs.provider.ibverbs.generated.ibv_ah_attr;
import io.rdma.verbs.provider.ibverbs.generated.rdma_h;
import io.rdma.verbs.spi.AhHandle;
import io.rdma.verbs.spi.CqHandle;
import io.rdma.verbs.spi.MrHandle;
import io.rdma.verbs.spi.PdHandle;
import io.rdma.verbs.spi.QpHandle;
import io.rdma.verbs.spi.SrqHandle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.jspecify.annotations.Nullable;

/** {@code struct ibv_pd}. */
final class NativePd implements PdHandle {

    private static final CheckedCall DEALLOC_PD = CheckedCall.bind("ibv_dealloc_pd",
            rdma_h.ibv_dealloc_pd$address(), rdma_h.ibv_dealloc_pd$descriptor());
    private static final CheckedCall REG_MR = CheckedCall.bind("ibv_reg_mr",
            rdma_h.ibv_reg_mr$address(), rdma_h.ibv_reg_mr$descriptor());
    private static final CheckedCall CREATE_AH = CheckedCall.bind("ibv_create_ah",
            rdma_h.ibv_create_ah$address(), rdma_h.ibv_create_ah$descriptor());

    private final NativeContext context;
    private final MemorySegment pd;

    NativePd(NativeContext context, MemorySegment pd) {
        this.context = context;
        this.pd = pd;
        context.census().created(ResourceKind.PROTECTION_DOMAIN);
    }

    MemorySegment segment() {
        return pd;
    }

    @Override
    public MrHandle registerMemory(MemorySegment memory, int accessMask) {
        MemorySegment mr = REG_MR.pointer(memory.byteSize() + " bytes at 0x" + Long.toHexString(memory.address())
                + ", access 0x" + Integer.toHexString(accessMask), pd, memory, memory.byteSize(), accessMask);
        return new NativeMr(context, mr);
    }

    @Override
    public QpHandle createQueuePair(QueuePairType type, CqHandle sendCq, CqHandle recvCq, @Nullable SrqHandle srq,
                                    QueuePairCapabilities capabilities, boolean signalAll) {
        return NativeQp.create(context, this, type, (NativeCq) sendCq, (NativeCq) recvCq, (NativeSrq) srq,
                capabilities, signalAll);
    }

    @Override
    public SrqHandle createSharedReceiveQueue(SharedReceiveQueueAttributes attributes) {
        return NativeSrq.create(context, this, attributes);
    }

    @Override
    public AhHandle createAddressHandle(AddressVector addressVector) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_ah_attr.allocate(arena);
            AddressVectors.write(addressVector, attr);
            return new NativeAh(context, CREATE_AH.pointer(String.valueOf(addressVector), pd, attr));
        }
    }

    @Override
    public void destroy() {
        DEALLOC_PD.status(null, pd);
        context.census().destroyed(ResourceKind.PROTECTION_DOMAIN);
    }
}

package io.rdma.verbs.spi;

import io.rdma.verbs.api.AddressVector;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.SharedReceiveQueueAttributes;

import java.lang.foreign.MemorySegment;

import org.jspecify.annotations.Nullable;

/** {@code struct ibv_pd}. */
public interface PdHandle {

    /** {@code ibv_reg_mr} over {@code memory}, which stays valid until the MR is deregistered. */
    MrHandle registerMemory(MemorySegment memory, int accessMask);

    /** {@code ibv_create_qp}; {@code srq} may be null. Returns with the granted capabilities. */
    QpHandle createQueuePair(QueuePairType type, CqHandle sendCq, CqHandle recvCq, @Nullable SrqHandle srq,
                             QueuePairCapabilities capabilities, boolean signalAll);

    SrqHandle createSharedReceiveQueue(SharedReceiveQueueAttributes attributes);

    AhHandle createAddressHandle(AddressVector addressVector);

    /** {@code ibv_dealloc_pd}. */
    void destroy();
}

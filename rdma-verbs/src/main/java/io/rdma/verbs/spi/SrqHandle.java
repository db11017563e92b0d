package io.rdma.verbs.spi;

import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SharedReceiveQueueAttributes;

/** {@code struct ibv_srq}. */
public interface SrqHandle {

    /** {@code ibv_post_srq_recv}. */
    void postReceive(ReceiveWorkRequest first);

    /** {@code ibv_modify_srq} with {@code IBV_SRQ_LIMIT}: arms the limit event (0 disarms). */
    void modifyLimit(int limit);

    /** {@code ibv_query_srq}. */
    SharedReceiveQueueAttributes query();

    /** {@code ibv_destroy_srq}. */
    void destroy();
}

package io.rdma.verbs.spi;

import org.jspecify.annotations.Nullable;

/** {@code struct ibv_comp_channel}. */
public interface ChannelHandle {

    /**
     * {@code ibv_get_cq_event} with a timeout: the CQ that has an event, or {@code null} when
     * {@code timeoutNanos} passed first. The caller acknowledges with {@link CqHandle#acknowledgeEvents}.
     */
    @Nullable CqHandle awaitEvent(long timeoutNanos) throws InterruptedException;

    /** {@code ibv_destroy_comp_channel}. */
    void destroy();
}

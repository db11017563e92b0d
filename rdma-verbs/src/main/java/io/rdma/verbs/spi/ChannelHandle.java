package io.rdma.verbs.spi;

import org.jspecify.annotations.Nullable;

/** {@code struct ibv_comp_channel}. */
public interface ChannelHandle {

    /**
     * {@code ibv_get_cq_event} with a timeout: the CQ that has an event, or {@code null} when
     * {@code timeoutNanos} passed first. The caller acknowledges with {@link CqHandle#acknowledgeEvents}.
     */
    @Nullable CqHandle awaitEvent(long timeoutNanos) throws InterruptedException;

    /**
     * Ends every wait on this channel, those under way and those to come: {@link #awaitEvent}
     * returns {@code null} promptly (a wait blocked in the kernel within one of its poll slices)
     * instead of waiting out its timeout. Called when the channel is closed, before
     * {@link #destroy()}, which the caller runs only once no thread is left inside {@link #awaitEvent}.
     */
    void shutdown();

    /** {@code ibv_destroy_comp_channel}; never called while a thread is inside {@link #awaitEvent}. */
    void destroy();
}

package io.rdma.spring.channel;

import java.lang.foreign.MemorySegment;

/**
 * Receives the replies of request/reply on a channel: whoever keeps the channel's receive queue
 * filled (the listener containers' receivers) hands each reply it takes to a sink, and keeps
 * receiving for as long as the channel is up, also on a channel no listener handles.
 */
public interface ChannelReplies {

    /**
     * From now on, every reply received on {@code channel} goes to {@code sink}, and the
     * channel's receive queue is kept filled while it is up. Calling it again for the same channel
     * changes nothing.
     */
    void receiveReplies(RdmaChannel channel, ReplySink sink);

    /** Takes a reply on the poller thread that received it; the payload is only valid during the call. */
    @FunctionalInterface
    interface ReplySink {

        /** The reply with immediate value {@code immediateData}: the first {@code length} bytes of {@code payload}. */
        void replied(RdmaChannel channel, int immediateData, MemorySegment payload, int length);
    }
}

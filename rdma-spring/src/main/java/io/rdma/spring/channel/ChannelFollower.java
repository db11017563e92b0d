package io.rdma.spring.channel;

/**
 * Told when a channel comes up, goes down and goes for good, on the thread that changed it (a
 * connection's thread, never a completion poller), in the order of the changes. A follower must
 * not block for long: the connection waits for it.
 */
public interface ChannelFollower {

    /**
     * The channel's queue pair is in INIT and its connection is about to be made; the channel
     * stays DOWN. Receives posted now are there for the peer's first messages, which may come as
     * soon as the connection is established, before {@link #up}: iWARP has no RNR retry to hold
     * such a message back until a receive is posted (the connection fails), InfiniBand and RoCE
     * only as often as the sender's RNR retry count allows. Nothing by default.
     */
    default void connecting(RdmaChannel channel) {
    }

    /** The channel's queue pair is usable; receives may be posted (again, after a reconnection's reset emptied them). */
    void up(RdmaChannel channel);

    /**
     * The channel's queue pair was flushed (its flushed completions have been delivered) and is
     * about to be reset for a reconnection; {@link RdmaChannel#lastFailure()} says why.
     */
    void down(RdmaChannel channel);

    /**
     * The channel's queue pair was flushed and is about to be closed; its name no longer finds it,
     * or finds its successor on a fresh queue pair ({@link RdmaChannels#renew}), a channel of its
     * own: what a follower keeps per channel name must go only if it is this channel's. By default
     * as {@link #down}, which a follower that keeps nothing per channel needs alone.
     */
    default void gone(RdmaChannel channel) {
        down(channel);
    }
}

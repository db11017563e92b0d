package io.rdma.spring.channel;

/**
 * Told when a channel comes up, goes down and goes for good, on the thread that changed it (a
 * connection's thread, never a completion poller), in the order of the changes. A follower must
 * not block for long: the connection waits for it.
 */
public interface ChannelFollower {

    /** The channel's queue pair is usable; receives may be posted (again, after a reconnection's reset emptied them). */
    void up(RdmaChannel channel);

    /**
     * The channel's queue pair was flushed (its flushed completions have been delivered) and is
     * about to be reset for a reconnection; {@link RdmaChannel#lastFailure()} says why.
     */
    void down(RdmaChannel channel);

    /**
     * The channel's queue pair was flushed and is about to be closed; its name no longer finds it.
     * By default as {@link #down}, which a follower that keeps nothing per channel needs alone.
     */
    default void gone(RdmaChannel channel) {
        down(channel);
    }
}

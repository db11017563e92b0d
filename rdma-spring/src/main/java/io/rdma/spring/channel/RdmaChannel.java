package io.rdma.spring.channel;

import io.rdma.spring.resource.SendTimeout;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.QueuePair;

import java.net.InetSocketAddress;

import org.jspecify.annotations.Nullable;

/**
 * A named queue pair the programming model sends and receives on: a declared queue pair, or one
 * made from a prototype for an accepted peer ({@code <listener>#<n>}) or a discovered service's
 * instance ({@code <connection>@<instance id>}); with the memory pool its buffers come from, how
 * long its sends wait for send-queue room, and its state. The identity is fixed; the state, the
 * remote address and the last failure change as its connection does, and are read without a lock.
 */
public final class RdmaChannel {

    private final String name;
    private final String source;
    private final String declaration;
    private final QueuePair queuePair;
    private final @Nullable MemoryPool memoryPool;
    private final SendTimeout sendTimeout;
    private final int poolSharers;
    private volatile ChannelState state;
    private volatile @Nullable InetSocketAddress remote;
    private volatile @Nullable String lastFailure;
    /** Set by {@link RdmaChannels#connecting}, cleared by the next change of state. */
    private volatile boolean connecting;

    RdmaChannel(String name, String source, String declaration, QueuePair queuePair, @Nullable MemoryPool memoryPool,
                SendTimeout sendTimeout, int poolSharers, ChannelState state) {
        this.name = name;
        this.source = source;
        this.declaration = declaration;
        this.queuePair = queuePair;
        this.memoryPool = memoryPool;
        this.sendTimeout = sendTimeout;
        this.poolSharers = poolSharers;
        this.state = state;
    }

    /** What the template and {@code @RdmaListener} name it by. */
    public String name() {
        return name;
    }

    /**
     * What followers register for: the declared queue pair's name, or the listener's or service
     * connection's name for the channels of its peers or instances.
     */
    public String source() {
        return source;
    }

    /** The declared queue pair, or the declared prototype this channel's queue pair was made from. */
    public String declaration() {
        return declaration;
    }

    public QueuePair queuePair() {
        return queuePair;
    }

    /** The pool sends lease buffers from and receives are posted with; null when the declaration gives none. */
    public @Nullable MemoryPool memoryPool() {
        return memoryPool;
    }

    public SendTimeout sendTimeout() {
        return sendTimeout;
    }

    /**
     * How many channels may receive into {@link #memoryPool()} at once: 1 for a declared queue
     * pair, the listener's max-connections or the service connection's max-instances for channels
     * made from a prototype, whose pool they share.
     */
    public int poolSharers() {
        return poolSharers;
    }

    public ChannelState state() {
        return state;
    }

    /** The peer's address while it is or was connected; null for a declared queue pair no connection brings up. */
    public @Nullable InetSocketAddress remote() {
        return remote;
    }

    /**
     * Whether its queue pair is in INIT with its connection being made ({@link ChannelFollower#connecting}):
     * receives may be posted, and the channel is not UP yet.
     */
    public boolean isConnecting() {
        return connecting;
    }

    /** Why the channel last went down or away, or null while it never did. */
    public @Nullable String lastFailure() {
        return lastFailure;
    }

    void moveTo(ChannelState next, @Nullable InetSocketAddress remoteAddress, @Nullable String failure) {
        if (remoteAddress != null) {
            remote = remoteAddress;
        }
        if (failure != null) {
            lastFailure = failure;
        }
        connecting = false;
        state = next;
    }

    void connecting() {
        connecting = true;
    }

    /**
     * This channel's successor on {@code fresh}, a new queue pair of the same declaration for its
     * next connection: the same name, source, pool and send timeout, DOWN, with this one's remote
     * address and last failure.
     */
    RdmaChannel renewedOn(QueuePair fresh) {
        RdmaChannel successor = new RdmaChannel(name, source, declaration, fresh, memoryPool, sendTimeout, poolSharers,
                ChannelState.DOWN);
        successor.remote = remote;
        successor.lastFailure = lastFailure;
        return successor;
    }

    @Override
    public String toString() {
        return "channel '" + name + "' (" + state + ")";
    }
}

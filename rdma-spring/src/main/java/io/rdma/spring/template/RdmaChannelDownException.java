package io.rdma.spring.template;

import io.rdma.spring.channel.ChannelState;

import org.jspecify.annotations.Nullable;

/**
 * A request's channel is down or gone: at the call, or while the request waited for its reply.
 * The cause is why the channel went, as its connection reported it (a completion status, an
 * asynchronous event, the peer disconnecting).
 */
public class RdmaChannelDownException extends RuntimeException {

    private final String channel;
    private final ChannelState state;

    public RdmaChannelDownException(String channel, ChannelState state, @Nullable String cause) {
        super("channel '" + channel + "' is " + state + (cause != null ? ": " + cause : ""));
        this.channel = channel;
        this.state = state;
    }

    public String channel() {
        return channel;
    }

    public ChannelState state() {
        return state;
    }
}

package io.rdma.spring.template;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * No reply to a request came within its timeout. If the request was still waiting for send-queue
 * room it is withdrawn and never sent; if it was sent, the peer may have acted on it, and a reply
 * that comes later is dropped and counted ({@link RdmaTemplate#lateReplies()}).
 */
public class RdmaReplyTimeoutException extends TimeoutException {

    private final String channel;
    private final Duration timeout;

    public RdmaReplyTimeoutException(String channel, Duration timeout, int correlationId) {
        super("no reply on channel '" + channel + "' within " + timeout + " (correlation id " + correlationId
                + "); raise the timeout of the call, or rdma.template.reply-timeout, if the peer is slow");
        this.channel = channel;
        this.timeout = timeout;
    }

    public String channel() {
        return channel;
    }

    public Duration timeout() {
        return timeout;
    }
}

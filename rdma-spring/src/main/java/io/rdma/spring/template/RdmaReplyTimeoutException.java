package io.rdma.spring.template;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * No reply to a request came within its timeout. The request was sent (a request that could not
 * be sent fails with why), so the peer may have acted on it; a reply that comes later is dropped
 * and counted ({@link RdmaTemplate#lateReplies()}).
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

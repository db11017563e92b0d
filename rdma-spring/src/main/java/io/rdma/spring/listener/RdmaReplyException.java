package io.rdma.spring.listener;

import io.rdma.spring.template.RdmaChannelDownException;
import io.rdma.spring.template.RdmaOperationException;
import io.rdma.verbs.api.CompletionStatus;

/**
 * The reply an {@link RdmaListener} method returned could not be sent back on the queue pair the
 * request came in on. The cause says why: a {@code SendQueueFullException} (no room in the send
 * queue within its send-timeout), an {@code RdmaOperationException} (the send completed with an
 * error status), a {@code VerbsException} (the post was refused, or the pool had no buffer), or
 * an {@code IllegalArgumentException} (the peer's queue pair is gone).
 */
public class RdmaReplyException extends RuntimeException {

    private final String queuePair;

    public RdmaReplyException(String queuePair, Throwable cause) {
        super("The reply to a message of queue pair '" + queuePair + "' could not be sent: " + cause.getMessage(),
                cause);
        this.queuePair = queuePair;
    }

    /** The queue pair the reply was to go out on. */
    public String queuePair() {
        return queuePair;
    }

    /**
     * Whether the reply was lost with its channel, nothing being wrong with the message or the
     * method: the channel was down or gone, or the send completed with WR_FLUSH_ERR (the queue
     * pair failed, or was torn down to reconnect) or RETRY_EXC_ERR (the peer stopped answering).
     * The connection reports that failure itself, and the requester's request fails with its own
     * side of it, so the default error handler logs such a reply at WARN, in one line.
     */
    public boolean isChannelFailure() {
        return getCause() instanceof RdmaChannelDownException
                || getCause() instanceof RdmaOperationException failed
                && (failed.status() == CompletionStatus.WR_FLUSH_ERR || failed.status() == CompletionStatus.RETRY_EXC_ERR);
    }
}

package io.rdma.spring.listener;

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
}

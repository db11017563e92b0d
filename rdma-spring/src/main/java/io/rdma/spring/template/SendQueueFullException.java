package io.rdma.spring.template;

import java.time.Duration;

/**
 * An operation of the {@link RdmaTemplate} found no room in its queue pair's send queue within
 * the queue pair's {@code send-timeout}: every slot was held by a work request whose completion
 * had not been polled yet, typically because the peer receives more slowly than this side sends
 * (its receive queue runs dry and the sends wait on RNR retries) or the link is congested. The
 * operation was never posted.
 */
public class SendQueueFullException extends RuntimeException {

    private final String queuePair;
    private final int outstanding;
    private final int maxSendWr;
    private final Duration sendTimeout;
    private final String property;

    public SendQueueFullException(String operation, String queuePair, int outstanding, int maxSendWr,
                                  Duration sendTimeout, String property) {
        super(operation + " on queue pair '" + queuePair + "' found no room within its send-timeout of "
                + sendTimeout + ": send queue full: " + outstanding + " work requests outstanding of max-send-wr "
                + maxSendWr + ". Raise " + property + " to wait longer or max-send-wr to hold more, or send"
                + " less at once: the peer may be receiving more slowly than this side sends.");
        this.queuePair = queuePair;
        this.outstanding = outstanding;
        this.maxSendWr = maxSendWr;
        this.sendTimeout = sendTimeout;
        this.property = property;
    }

    /** The name of the queue pair whose send queue was full. */
    public String queuePair() {
        return queuePair;
    }

    /** Send work requests outstanding when the operation gave up. */
    public int outstanding() {
        return outstanding;
    }

    /** The send queue's depth, as the device granted it. */
    public int maxSendWr() {
        return maxSendWr;
    }

    /** How long the operation waited for room. */
    public Duration sendTimeout() {
        return sendTimeout;
    }

    /** The property that sets {@link #sendTimeout()}. */
    public String property() {
        return property;
    }
}

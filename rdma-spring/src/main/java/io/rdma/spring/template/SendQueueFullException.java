package io.rdma.spring.template;

import java.time.Duration;

/**
 * An operation of the {@link RdmaTemplate} found no room within the queue pair's
 * {@code send-timeout}: either every slot of the send queue was held by a work request whose
 * completion had not been polled yet, typically because the peer receives more slowly than this
 * side sends (its receive queue runs dry and the sends wait on RNR retries) or the link is
 * congested; or every buffer of the queue pair's memory pool was leased (by sends in flight,
 * posted receives, and messages listeners hold). The operation was never posted.
 */
public class SendQueueFullException extends RuntimeException {

    private final String queuePair;
    private final int outstanding;
    private final int maxSendWr;
    private final Duration sendTimeout;
    private final String property;
    private final int leasedBuffers;
    private final int poolBuffers;

    public SendQueueFullException(String operation, String queuePair, int outstanding, int maxSendWr,
                                  int leasedBuffers, int poolBuffers, Duration sendTimeout, String property) {
        super(operation + " on queue pair '" + queuePair + "' found no room within its send-timeout of "
                + sendTimeout + ": " + (outstanding < maxSendWr
                ? "every buffer of its memory pool leased: " + leasedBuffers + " of " + poolBuffers + ", by sends in"
                        + " flight, posted receives and messages listeners hold. Raise " + property + " to wait"
                        + " longer or the pool's count to hold more, or release received buffers sooner."
                : "send queue full: " + outstanding + " work requests outstanding of max-send-wr " + maxSendWr
                        + ". Raise " + property + " to wait longer or max-send-wr to hold more, or send less at"
                        + " once: the peer may be receiving more slowly than this side sends."));
        this.leasedBuffers = leasedBuffers;
        this.poolBuffers = poolBuffers;
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

    /** Buffers of the queue pair's memory pool leased when the operation gave up. */
    public int leasedBuffers() {
        return leasedBuffers;
    }

    /** The buffers the queue pair's memory pool holds. */
    public int poolBuffers() {
        return poolBuffers;
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

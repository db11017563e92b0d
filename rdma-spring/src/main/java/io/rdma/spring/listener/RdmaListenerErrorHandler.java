package io.rdma.spring.listener;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.FixedBackOff;

/**
 * What an {@link RdmaListener} does with a message whose handling failed, named by the
 * listener's {@link RdmaListener#errorHandler()}: how often and after how long the method is
 * tried again ({@link #backOff()}, none by default), and what becomes of a message that retries
 * could not fix or whose reply could not be sent ({@link #handleError}, the recoverer). When the
 * message was a request of request/reply, the requester's future fails with the failure's type
 * and message as well, once this returned. Called on the listener's worker virtual thread, never
 * on a completion queue's poller, so it may block; the failed invocation counts against the
 * listener's concurrency until it returns. What it throws is logged at ERROR.
 *
 * <p>{@link RetryingErrorHandler} pairs a Spring {@link BackOff} with a recoverer.
 */
@FunctionalInterface
public interface RdmaListenerErrorHandler {

    /**
     * The recoverer: retries are over, or the reply could not be sent.
     *
     * @param message the message the method was called with (for a {@link ReceivedBuffer} method, a
     *                copy, whose payload is empty when the method released the buffer before failing) ({@link ReceivedMessage#queuePair()}
     *                names the channel it came in on, and a reply would have gone out on)
     * @param failure what the method threw the last time, as it threw it; or an {@link RdmaReplyException}
     *                whose cause says why the reply was not sent
     */
    void handleError(ReceivedMessage message, Throwable failure);

    /**
     * The intervals between attempts of one message, started at its first failure: the method is
     * called again after each, until the back-off stops. None by default. Listeners that run on the
     * poller thread are never retried: waiting there would stop the CQ's completions.
     */
    default BackOff backOff() {
        return new FixedBackOff(0, 0);
    }
}

package io.rdma.spring.listener;

/**
 * What an {@link RdmaListener} does with a message whose handling failed, named by the
 * listener's {@link RdmaListener#errorHandler()}: the method threw, or its reply could not be
 * sent. Called on the listener's worker virtual thread, never on a completion queue's poller, so it may block; the
 * failed invocation counts against the listener's concurrency until it returns. What it throws
 * is logged at ERROR.
 */
@FunctionalInterface
public interface RdmaListenerErrorHandler {

    /**
     * @param message the message the method was called with (for a {@link ReceivedBuffer} method, a
     *                copy, whose payload is empty when the method released the buffer before failing) ({@link ReceivedMessage#queuePair()}
     *                names the queue pair it came in on, and a reply would have gone out on)
     * @param failure what the method threw, as it threw it; or an {@link RdmaReplyException}
     *                whose cause says why the reply was not sent
     */
    void handleError(ReceivedMessage message, Throwable failure);
}

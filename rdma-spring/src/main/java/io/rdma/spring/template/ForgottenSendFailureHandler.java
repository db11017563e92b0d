package io.rdma.spring.template;

/**
 * Told of each send of {@link RdmaOperations#sendAndForget} that failed after the call returned:
 * an error completion, the channel's send-timeout passing while it waited for room, the channel
 * gone with it in flight. (What the call can tell at once it throws instead.) Called on the thread
 * that saw the failure, often a completion poller, which polls nothing meanwhile: record or hand
 * over, do not block. The template logs each at WARN unless
 * {@link RdmaTemplate#setForgottenSendFailureHandler another handler} is set.
 */
@FunctionalInterface
public interface ForgottenSendFailureHandler {

    /** The send ({@code operation}: "send" or "send with immediate") on {@code channel} failed with {@code failure}. */
    void failed(String channel, String operation, Throwable failure);
}

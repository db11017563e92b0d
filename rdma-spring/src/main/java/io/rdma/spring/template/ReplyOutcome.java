package io.rdma.spring.template;

import org.jspecify.annotations.Nullable;

/**
 * Told how a reply sent with {@link RdmaTemplate#reply(String, boolean, int, byte[], ReplyOutcome)}
 * ended, before its future completes: what a listener container uses to report a reply that
 * failed, instead of a callback chained to each reply's future. Called once per reply, on the
 * thread that settles it: a completion poller's, the send-timeout's timer, or the caller's when
 * the reply is refused at the call. It must not block.
 */
@FunctionalInterface
public interface ReplyOutcome {

    /** The reply was sent ({@code failure} null) or will never be. */
    void replySettled(@Nullable Throwable failure);
}

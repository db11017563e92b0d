package io.rdma.spring.template;

import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The timer of every request's reply timeout: one daemon thread for the JVM, whose cancelled
 * timeouts leave its queue at once, so that a request answered in time keeps nothing behind.
 */
final class ReplyTimeouts {

    private static final ScheduledThreadPoolExecutor TIMER = timer();

    private ReplyTimeouts() {
    }

    /** Fails {@code request} with a timeout after {@code timeout}, unless it is settled first. */
    static void schedule(Request request, PendingRequests pending, String channel, Duration timeout) {
        request.timeout(TIMER.schedule(() -> {
            // Only if the reply has not taken the slot meanwhile: that reply settles the request.
            if (pending.forget(request)) {
                request.fail(new RdmaReplyTimeoutException(channel, timeout, request.correlationId()));
            }
        }, timeout.toNanos(), TimeUnit.NANOSECONDS));
    }

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().daemon().name("rdma-reply-timeouts").factory());
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }
}

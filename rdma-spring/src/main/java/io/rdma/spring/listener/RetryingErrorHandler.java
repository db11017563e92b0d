package io.rdma.spring.listener;

import org.springframework.util.backoff.BackOff;

/**
 * Tries a failed message again after each interval of a Spring {@link BackOff}
 * ({@code FixedBackOff}, {@code ExponentialBackOff}, ...), and hands what retries could not fix
 * to a recoverer: the application's own, or {@link #logging} by default (as spring-kafka's
 * {@code DefaultErrorHandler} pairs a back-off with a {@code ConsumerRecordRecoverer}). Declare one
 * as a bean and name it in {@link RdmaListener#errorHandler()}.
 */
public final class RetryingErrorHandler implements RdmaListenerErrorHandler {

    private final BackOff backOff;
    private final RdmaListenerErrorHandler recoverer;

    public RetryingErrorHandler(BackOff backOff, RdmaListenerErrorHandler recoverer) {
        this.backOff = backOff;
        this.recoverer = recoverer;
    }

    /** Retries after {@code backOff}'s intervals, then logs at ERROR what retries could not fix. */
    public static RetryingErrorHandler logging(BackOff backOff) {
        return new RetryingErrorHandler(backOff, LoggingErrorHandler.INSTANCE);
    }

    @Override
    public void handleError(ReceivedMessage message, Throwable failure) {
        recoverer.handleError(message, failure);
    }

    @Override
    public BackOff backOff() {
        return backOff;
    }
}

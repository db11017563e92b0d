package io.rdma.spring.listener;

import java.util.Objects;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The recoverer of listeners that name none: logs the failure at ERROR with the listener and the
 * channel; a reply lost with its channel ({@link RdmaReplyException#isChannelFailure()}) at WARN,
 * without its stack, since the connection's failure is reported where it happened and nothing in
 * the application was wrong.
 */
final class LoggingErrorHandler implements RdmaListenerErrorHandler {

    static final LoggingErrorHandler INSTANCE = new LoggingErrorHandler("An @RdmaListener method");

    private final String listener;
    private final Log logger;

    /** {@code listener}: the listener as the log names it. */
    LoggingErrorHandler(String listener) {
        this(listener, LogFactory.getLog(RdmaListener.class));
    }

    LoggingErrorHandler(String listener, Log logger) {
        this.listener = listener;
        this.logger = logger;
    }

    @Override
    public void handleError(ReceivedMessage message, Throwable failure) {
        if (failure instanceof RdmaReplyException lost && lost.isChannelFailure()) {
            logger.warn("The reply of " + listener + " to a message of channel '" + message.queuePair()
                    + "' was lost with the channel: " + Objects.requireNonNull(lost.getCause()).getMessage());
        } else {
            logger.error(listener + " failed on a message of channel '" + message.queuePair() + "'", failure);
        }
    }
}

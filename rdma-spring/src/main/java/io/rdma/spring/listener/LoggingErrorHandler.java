package io.rdma.spring.listener;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/** The recoverer of listeners that name none: logs the failure at ERROR with the listener and the channel. */
final class LoggingErrorHandler implements RdmaListenerErrorHandler {

    static final LoggingErrorHandler INSTANCE = new LoggingErrorHandler("An @RdmaListener method");
    private static final Log logger = LogFactory.getLog(RdmaListener.class);

    private final String listener;

    /** {@code listener}: the listener as the log names it. */
    LoggingErrorHandler(String listener) {
        this.listener = listener;
    }

    @Override
    public void handleError(ReceivedMessage message, Throwable failure) {
        logger.error(listener + " failed on a message of channel '" + message.queuePair() + "'", failure);
    }
}

package io.rdma.spring.template;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The template's {@link ForgottenSendFailureHandler} unless another is set: one WARN line per
 * failure, without the stack trace, which would show only the poller or timer that saw it.
 */
final class LoggingForgottenSendFailureHandler implements ForgottenSendFailureHandler {

    static final LoggingForgottenSendFailureHandler INSTANCE = new LoggingForgottenSendFailureHandler();

    private static final Log logger = LogFactory.getLog(RdmaTemplate.class);

    private LoggingForgottenSendFailureHandler() {
    }

    @Override
    public void failed(String channel, String operation, Throwable failure) {
        logger.warn("A " + operation + " without a future (sendAndForget) on channel '" + channel + "' failed: "
                + failure);
    }
}

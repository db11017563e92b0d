package io.rdma.spring.listener;

import io.rdma.spring.PlainRdmaConfiguration;
import io.rdma.spring.SimulatedLoopback;
import io.rdma.spring.channel.ChannelState;
import io.rdma.spring.template.RdmaChannelDownException;
import io.rdma.spring.template.RdmaOperationException;
import io.rdma.spring.template.RdmaTemplate;
import io.rdma.spring.template.SendQueueFullException;
import io.rdma.verbs.api.CompletionStatus;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.impl.NoOpLog;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A listener's reply that its channel's failure took with it (the queue pair failed while the
 * method ran) reaches the error handler as an {@link RdmaReplyException} that says so, and the
 * default error handler logs it at WARN in one line; a reply refused for another reason, and a
 * method that threw, stay ERRORs with their stack. A link that went down made the sample log such
 * a flushed reply at ERROR on rxe0, though the connection had reported its own failure.
 */
class LostReplyTests {

    private static final long WAIT_SECONDS = 30;

    @Test
    void aReplyFlushedBecauseTheQueuePairFailedIsAChannelFailure() throws Exception {
        try (AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(Replying.class, ErrorHandler.class)) {
            Replying listener = context.getBean(Replying.class);
            context.getBean(RdmaTemplate.class).send(SimulatedLoopback.CLIENT, "question".getBytes(StandardCharsets.UTF_8))
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(listener.called.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the listener was called").isTrue();

            context.getBean(SimulatedLoopback.class).server().toError();
            listener.answer.countDown();

            Throwable failure = context.getBean(Recoverer.class).failures.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(failure).as("the lost reply reached the error handler").isInstanceOf(RdmaReplyException.class);
            assertThat(((RdmaReplyException) failure).isChannelFailure()).as("%s", failure).isTrue();
        }
    }

    @Test
    void theDefaultErrorHandlerLogsAReplyLostWithItsChannelAtWarnAndOtherFailuresAtError() {
        RecordingLog log = new RecordingLog();
        LoggingErrorHandler handler = new LoggingErrorHandler("@RdmaListener method Echo.echo", log);
        ReceivedMessage message = new ReceivedMessage(SimulatedLoopback.SERVER, new byte[0], false, 0);

        handler.handleError(message, new RdmaReplyException(SimulatedLoopback.SERVER,
                new RdmaOperationException("send", SimulatedLoopback.SERVER, CompletionStatus.WR_FLUSH_ERR, 0)));
        handler.handleError(message, new RdmaReplyException(SimulatedLoopback.SERVER,
                new RdmaOperationException("send", SimulatedLoopback.SERVER, CompletionStatus.RETRY_EXC_ERR, 0)));
        handler.handleError(message, new RdmaReplyException(SimulatedLoopback.SERVER,
                new RdmaChannelDownException(SimulatedLoopback.SERVER, ChannelState.DOWN, "completion RETRY_EXC_ERR")));
        handler.handleError(message, new RdmaReplyException(SimulatedLoopback.SERVER,
                new SendQueueFullException("send", SimulatedLoopback.SERVER, 2, 2, 0, 16, Duration.ofMillis(100),
                        "rdma.queue-pairs.server.send-timeout")));
        handler.handleError(message, new RdmaReplyException(SimulatedLoopback.SERVER,
                new RdmaOperationException("send", SimulatedLoopback.SERVER, CompletionStatus.REM_ACCESS_ERR, 0)));
        handler.handleError(message, new IllegalStateException("the method failed"));

        assertThat(log.warnings).hasSize(3).allSatisfy(line -> assertThat(line)
                .startsWith("The reply of @RdmaListener method Echo.echo to a message of channel 'server' was lost with "
                        + "the channel: "));
        assertThat(log.warnings.get(0)).contains("WR_FLUSH_ERR");
        assertThat(log.warnings.get(2)).contains("channel 'server' is DOWN: completion RETRY_EXC_ERR");
        assertThat(log.errors).hasSize(3);
        assertThat(log.errors.get(0)).isInstanceOf(RdmaReplyException.class)
                .cause().isInstanceOf(SendQueueFullException.class);
        assertThat(log.errors.get(1)).isInstanceOf(RdmaReplyException.class).hasMessageContaining("REM_ACCESS_ERR");
        assertThat(log.errors.get(2)).hasMessage("the method failed");
    }

    /** What the handler logged: WARN lines (with no throwable), ERROR throwables. */
    private static final class RecordingLog extends NoOpLog {
        final List<String> warnings = new CopyOnWriteArrayList<>();
        final List<Throwable> errors = new CopyOnWriteArrayList<>();

        @Override
        public void warn(Object message) {
            warnings.add(String.valueOf(message));
        }

        @Override
        public void warn(Object message, Throwable failure) {
            throw new AssertionError("a lost reply is one line, without its stack: " + message, failure);
        }

        @Override
        public void error(Object message, Throwable failure) {
            errors.add(failure);
        }
    }

    /** Replies once the test let it: by then the test has failed the queue pair the reply goes out on. */
    static class Replying {
        final CountDownLatch called = new CountDownLatch(1);
        final CountDownLatch answer = new CountDownLatch(1);

        @RdmaListener(queuePair = SimulatedLoopback.SERVER, errorHandler = "recoverer")
        byte[] answer(byte[] question) throws InterruptedException {
            called.countDown();
            answer.await();
            return "answer".getBytes(StandardCharsets.UTF_8);
        }
    }

    static class Recoverer implements RdmaListenerErrorHandler {
        final BlockingQueue<Throwable> failures = new LinkedBlockingQueue<>();

        @Override
        public void handleError(ReceivedMessage message, Throwable failure) {
            failures.add(failure);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ErrorHandler {

        @Bean
        Recoverer recoverer() {
            return new Recoverer();
        }
    }
}

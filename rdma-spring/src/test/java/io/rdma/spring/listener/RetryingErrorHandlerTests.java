package io.rdma.spring.listener;

import io.rdma.spring.PlainRdmaConfiguration;
import io.rdma.spring.SimulatedLoopback;
import io.rdma.spring.template.RdmaTemplate;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RetryingErrorHandler} with {@code FixedBackOff(interval, 2)}: a method that keeps failing
 * is called three times (once and two retries) and its message then goes to the recoverer, once;
 * a method that succeeds on a retry never reaches the recoverer.
 */
class RetryingErrorHandlerTests {

    private static final long WAIT_SECONDS = 30;

    @Test
    void aMessageThatKeepsFailingIsTriedThreeTimesThenRecoveredOnce() throws Exception {
        try (AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(Retrying.class,
                FailingTimes.Always.class)) {
            send(context, "order-1");
            Recoverer recoverer = context.getBean(Recoverer.class);
            await(() -> !recoverer.recovered.isEmpty());
            Thread.sleep(300); // nothing more comes: no fourth call, no second recovery

            assertThat(context.getBean(FailingTimes.class).calls.get()).isEqualTo(3);
            assertThat(recoverer.recovered).containsExactly("order-1: failure 3");
        }
    }

    @Test
    void aMessageThatSucceedsOnARetryIsNotRecovered() throws Exception {
        try (AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(Retrying.class,
                FailingTimes.Twice.class)) {
            send(context, "order-2");
            FailingTimes method = context.getBean(FailingTimes.class);
            await(() -> method.succeeded.get() == 1);
            Thread.sleep(300);

            assertThat(method.calls.get()).isEqualTo(3);
            assertThat(context.getBean(Recoverer.class).recovered).isEmpty();
        }
    }

    private static void send(AnnotationConfigApplicationContext context, String message) throws Exception {
        context.getBean(RdmaTemplate.class).send(SimulatedLoopback.CLIENT, message.getBytes(StandardCharsets.UTF_8))
                .get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(condition.getAsBoolean()).as("within " + WAIT_SECONDS + " s").isTrue();
    }

    /** The recoverer: what it was given, as "payload: failure message". */
    static class Recoverer implements RdmaListenerErrorHandler {
        final List<String> recovered = new CopyOnWriteArrayList<>();

        @Override
        public void handleError(ReceivedMessage message, Throwable failure) {
            recovered.add(new String(message.payload(), StandardCharsets.UTF_8) + ": " + failure.getMessage());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Retrying {

        @Bean
        Recoverer recoverer() {
            return new Recoverer();
        }

        @Bean
        RetryingErrorHandler retrying(Recoverer recoverer) {
            return new RetryingErrorHandler(new FixedBackOff(20, 2), recoverer);
        }
    }

    /** Fails its first {@code failures} calls, each with "failure n". */
    abstract static class FailingTimes {
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger succeeded = new AtomicInteger();
        private final int failures;

        FailingTimes(int failures) {
            this.failures = failures;
        }

        @RdmaListener(queuePair = SimulatedLoopback.SERVER, errorHandler = "retrying")
        void receive(byte[] payload) {
            int call = calls.incrementAndGet();
            if (call <= failures) {
                throw new IllegalStateException("failure " + call);
            }
            succeeded.incrementAndGet();
        }

        static class Always extends FailingTimes {
            Always() {
                super(Integer.MAX_VALUE);
            }
        }

        static class Twice extends FailingTimes {
            Twice() {
                super(2);
            }
        }
    }
}

package io.rdma.spring.listener;

import io.rdma.boot.autoconfigure.IwarpLack;
import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.spring.template.RdmaTemplate;
import io.rdma.spring.template.SendQueueFullException;
import io.rdma.verbs.api.QueuePair;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @RdmaListener}'s concurrency and error handling, between the client queue pair of
 * {@code narrow-send-queue} and the peer the {@code sink} listener gives it.
 */
class RdmaListenerTests {

    private static final String PD = RdmaContextRunners.DEVICE_PROPERTY + ".protection-domains.pd0";
    private static final long WAIT_SECONDS = 30;

    @Test
    void withConcurrencyOneInvocationsNeverOverlapAndFollowTheOrderOfArrival() {
        runner().withBean(OneAtATime.class).run(context -> {
            assertThat(context).hasNotFailed();
            OneAtATime listener = context.getBean(OneAtATime.class);
            List<String> messages = IntStream.range(0, 32).mapToObj(i -> "message-" + i).toList();

            List<CompletableFuture<Void>> sent = send(context.getBean(RdmaTemplate.class), messages);
            // The first invocation holds on until every message has reached the peer, so that
            // each of the others could start at once if the limit let it.
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(WAIT_SECONDS, TimeUnit.SECONDS);
            listener.release.countDown();

            await(() -> listener.handled.size() == messages.size(), "every message handled");
            assertThat(listener.handled).containsExactlyElementsOf(messages);
            assertThat(listener.mostAtOnce.get()).isEqualTo(1);
        });
    }

    @Test
    void withoutALimitAnInvocationMayWaitForAnother() {
        runner().withBean(Unlimited.class).run(context -> {
            assertThat(context).hasNotFailed();
            Unlimited listener = context.getBean(Unlimited.class);

            send(context.getBean(RdmaTemplate.class), List.of("first", "second"));

            await(() -> listener.handled.size() == 2, "both invocations ran at once and returned");
            assertThat(listener.handled).containsExactlyInAnyOrder("first", "second");
        });
    }

    /**
     * The sink's invocation blocks, so the messages after it keep their receive buffers, the
     * peer's receive queue runs dry, the client's sends wait on RNR retries and its send queue
     * fills; the template's further sends wait for room. Released, every message is handled, in
     * order, and every send succeeds.
     */
    @Test
    void messagesBeyondTheLimitWaitHoldingTheirBuffersSoTheSenderWaitsAndNothingIsLost() {
        RdmaContextRunners.assumeInfinibandTransport(IwarpLack.RNR_FLOW_CONTROL);
        runner().withBean(OneAtATime.class).withPropertyValues(PD + ".queue-pairs.client.send-timeout=60s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    OneAtATime listener = context.getBean(OneAtATime.class);
                    QueuePair client = context.getBean("client", QueuePair.class);
                    int clientDepth = client.capabilities().maxSendWr();
                    // More than the peer's receive queue and the client's send queue hold together.
                    List<String> messages = IntStream.range(0, 256).mapToObj(i -> "message-" + i).toList();

                    List<CompletableFuture<Void>> sent = send(context.getBean(RdmaTemplate.class), messages);

                    await(() -> client.outstandingSends() == clientDepth, "the client's send queue filled up");
                    CompletableFuture<Void> allSent = CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
                    assertThatThrownBy(() -> allSent.get(200, TimeUnit.MILLISECONDS))
                            .as("the sends wait while the listener does").isInstanceOf(TimeoutException.class);
                    assertThat(sent.getLast()).as("the last send waits for room in the client's send queue")
                            .isNotDone();
                    listener.release.countDown();

                    allSent.get(WAIT_SECONDS, TimeUnit.SECONDS);
                    await(() -> listener.handled.size() == messages.size(), "every message handled");
                    assertThat(listener.handled).containsExactlyElementsOf(messages);
                    assertThat(listener.mostAtOnce.get()).isEqualTo(1);
                });
    }

    @Test
    void aHandlerExceptionReachesTheErrorHandlerWithItsMessageAndTheListenerGoesOn() {
        runner().withBean("recordingErrorHandler", RecordingErrorHandler.class).withBean(Refusing.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RecordingErrorHandler errors = context.getBean(RecordingErrorHandler.class);

                    send(context.getBean(RdmaTemplate.class), List.of("bad", "good"));

                    Failure failure = errors.failures.poll(WAIT_SECONDS, TimeUnit.SECONDS);
                    assertThat(failure).as("a failure reached the error handler").isNotNull();
                    assertThat(new String(failure.message().payload(), StandardCharsets.UTF_8)).isEqualTo("bad");
                    assertThat(failure.message().queuePair()).startsWith("sink#");
                    assertThat(failure.failure()).isInstanceOf(IllegalArgumentException.class)
                            .hasMessage("refused: bad");
                    Refusing listener = context.getBean(Refusing.class);
                    await(() -> listener.accepted.contains("good"), "the next message handled");
                    assertThat(errors.failures).isEmpty();
                });
    }

    /**
     * Nothing receives on the client, so the peer's replies wait on RNR retries and fill the
     * peer's send queue; the replies after them find no room within the template's send-timeout.
     */
    @Test
    void aReplyThatCannotBeSentReachesTheErrorHandler() {
        RdmaContextRunners.assumeInfinibandTransport(IwarpLack.RNR_FLOW_CONTROL);
        String peerPrototype = PD + ".queue-pair-prototypes.sink-peer";
        runner().withBean("recordingErrorHandler", RecordingErrorHandler.class).withBean(Replying.class)
                .withPropertyValues(peerPrototype + ".max-send-wr=2", peerPrototype + ".send-timeout=100ms",
                        "rdma.shutdown.drain-timeout=0s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RecordingErrorHandler errors = context.getBean(RecordingErrorHandler.class);

                    send(context.getBean(RdmaTemplate.class),
                            IntStream.range(0, 16).mapToObj(i -> "request-" + i).toList());

                    Failure failure = errors.failures.poll(WAIT_SECONDS, TimeUnit.SECONDS);
                    assertThat(failure).as("a failed reply reached the error handler").isNotNull();
                    RdmaReplyException replyFailed = RdmaContextRunners.cause(failure.failure(), RdmaReplyException.class);
                    assertThat(replyFailed.queuePair()).isEqualTo(failure.message().queuePair()).startsWith("sink#");
                    SendQueueFullException full = RdmaContextRunners.cause(replyFailed, SendQueueFullException.class);
                    assertThat(full.queuePair()).isEqualTo(failure.message().queuePair());
                    assertThat(full.property()).isEqualTo(peerPrototype + ".send-timeout");
                });
    }

    @Test
    void onThePollerThreadTheMethodRunsAsCompletionsAreTakenInOrderAndItsFailuresReachTheErrorHandler() {
        runner().withBean("recordingErrorHandler", RecordingErrorHandler.class).withBean(OnPollerThread.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    OnPollerThread listener = context.getBean(OnPollerThread.class);
                    List<String> messages = IntStream.range(0, 64).mapToObj(i -> i == 7 ? "bad" : "message-" + i)
                            .toList();

                    send(context.getBean(RdmaTemplate.class), messages);

                    await(() -> listener.handled.size() == messages.size() - 1, "every good message handled");
                    assertThat(listener.handled).containsExactlyElementsOf(
                            messages.stream().filter(message -> !message.equals("bad")).toList());
                    assertThat(listener.threads).allMatch(thread -> thread.startsWith("rdma-cq-"));
                    Failure failure = context.getBean(RecordingErrorHandler.class).failures
                            .poll(WAIT_SECONDS, TimeUnit.SECONDS);
                    assertThat(failure).as("the failure reached the error handler").isNotNull();
                    assertThat(new String(failure.message().payload(), StandardCharsets.UTF_8)).isEqualTo("bad");
                });
    }

    /** As {@link #aReplyThatCannotBeSentReachesTheErrorHandler}, from a method that must not wait for its reply. */
    @Test
    void aReplyFromThePollerThreadThatCannotBeSentReachesTheErrorHandler() {
        RdmaContextRunners.assumeInfinibandTransport(IwarpLack.RNR_FLOW_CONTROL);
        String peerPrototype = PD + ".queue-pair-prototypes.sink-peer";
        runner().withBean("recordingErrorHandler", RecordingErrorHandler.class).withBean(ReplyingOnPollerThread.class)
                .withPropertyValues(peerPrototype + ".max-send-wr=2", peerPrototype + ".send-timeout=100ms",
                        "rdma.shutdown.drain-timeout=0s")
                .run(context -> {
                    assertThat(context).hasNotFailed();

                    send(context.getBean(RdmaTemplate.class),
                            IntStream.range(0, 16).mapToObj(i -> "request-" + i).toList());

                    Failure failure = context.getBean(RecordingErrorHandler.class).failures
                            .poll(WAIT_SECONDS, TimeUnit.SECONDS);
                    assertThat(failure).as("a failed reply reached the error handler").isNotNull();
                    RdmaReplyException replyFailed = RdmaContextRunners.cause(failure.failure(),
                            RdmaReplyException.class);
                    assertThat(RdmaContextRunners.cause(replyFailed, SendQueueFullException.class).property())
                            .isEqualTo(peerPrototype + ".send-timeout");
                    assertThat(new String(failure.message().payload(), StandardCharsets.UTF_8))
                            .startsWith("request-");
                });
    }

    @Test
    void onThePollerThreadAConcurrencyLimitFailsTheStart() {
        runner().withBean(OnPollerThreadWithConcurrency.class).run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("onPollerThread and concurrency 2"));
    }

    @Test
    void aNegativeConcurrencyOrAMissingErrorHandlerFailsTheStart() {
        runner().withBean(NegativeConcurrency.class).run(context -> assertThat(context).hasFailed().getFailure()
                .rootCause().hasMessageContaining("concurrency -1"));
        runner().withBean(Refusing.class).run(context -> assertThat(context).hasFailed().getFailure()
                .rootCause().hasMessageContaining("recordingErrorHandler"));
    }

    private static ApplicationContextRunner runner() {
        return RdmaContextRunners.runner("narrow-send-queue");
    }

    private static List<CompletableFuture<Void>> send(RdmaTemplate template, List<String> messages) {
        return messages.stream().map(message -> template.send("client", message.getBytes(StandardCharsets.UTF_8)))
                .toList();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("within %d s: %s", WAIT_SECONDS, what).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    /** Handles one message at a time; the first waits for {@link #release}. */
    static final class OneAtATime {
        final CountDownLatch release = new CountDownLatch(1);
        final List<String> handled = new CopyOnWriteArrayList<>();
        final AtomicInteger atOnce = new AtomicInteger();
        final AtomicInteger mostAtOnce = new AtomicInteger();

        @RdmaListener(connectionListener = "sink", concurrency = 1)
        void receive(byte[] payload) throws InterruptedException {
            mostAtOnce.accumulateAndGet(atOnce.incrementAndGet(), Math::max);
            try {
                release.await();
                handled.add(new String(payload, StandardCharsets.UTF_8));
            } finally {
                atOnce.decrementAndGet();
            }
        }
    }

    /** Each invocation returns only once two have run at the same time. */
    static final class Unlimited {
        final CountDownLatch bothRunning = new CountDownLatch(2);
        final List<String> handled = new CopyOnWriteArrayList<>();

        @RdmaListener(connectionListener = "sink")
        void receive(byte[] payload) throws InterruptedException {
            bothRunning.countDown();
            if (bothRunning.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                handled.add(new String(payload, StandardCharsets.UTF_8));
            }
        }
    }

    static final class Refusing {
        final List<String> accepted = new CopyOnWriteArrayList<>();

        @RdmaListener(connectionListener = "sink", errorHandler = "recordingErrorHandler")
        void receive(byte[] payload) {
            String text = new String(payload, StandardCharsets.UTF_8);
            if (text.equals("bad")) {
                throw new IllegalArgumentException("refused: " + text);
            }
            accepted.add(text);
        }
    }

    static final class Replying {
        @RdmaListener(connectionListener = "sink", errorHandler = "recordingErrorHandler")
        byte[] receive(byte[] payload) {
            return payload;
        }
    }

    static final class OnPollerThread {
        final List<String> handled = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();

        @RdmaListener(connectionListener = "sink", onPollerThread = true, errorHandler = "recordingErrorHandler")
        void receive(byte[] payload) {
            threads.add(Thread.currentThread().getName());
            String text = new String(payload, StandardCharsets.UTF_8);
            if (text.equals("bad")) {
                throw new IllegalArgumentException("refused: " + text);
            }
            handled.add(text);
        }
    }

    static final class ReplyingOnPollerThread {
        @RdmaListener(connectionListener = "sink", onPollerThread = true, errorHandler = "recordingErrorHandler")
        byte[] receive(byte[] payload) {
            return payload;
        }
    }

    static final class OnPollerThreadWithConcurrency {
        @RdmaListener(connectionListener = "sink", onPollerThread = true, concurrency = 2)
        void receive(byte[] payload) {
        }
    }

    static final class NegativeConcurrency {
        @RdmaListener(connectionListener = "sink", concurrency = -1)
        void receive(byte[] payload) {
        }
    }

    record Failure(ReceivedMessage message, Throwable failure) {
    }

    static final class RecordingErrorHandler implements RdmaListenerErrorHandler {
        final BlockingQueue<Failure> failures = new LinkedBlockingQueue<>();

        @Override
        public void handleError(ReceivedMessage message, Throwable failure) {
            failures.add(new Failure(message, failure));
        }
    }
}

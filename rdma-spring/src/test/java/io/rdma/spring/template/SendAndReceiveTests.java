package io.rdma.spring.template;

import io.rdma.spring.PlainRdmaConfiguration;
import io.rdma.spring.SimulatedLoopback;
import io.rdma.spring.channel.ChannelState;
import io.rdma.spring.channel.RdmaChannel;
import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.listener.RdmaListener;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.VerbsException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Request/reply through {@link RdmaTemplate#sendAndReceive}: every reply reaches its own request,
 * also with many callers at once; a request without a reply fails with a timeout and leaves
 * nothing behind, and a reply after it is counted late; a listener that throws answers with an
 * error; a channel that goes down fails what waits on it at once.
 */
class SendAndReceiveTests {

    private static final String CLIENT = SimulatedLoopback.CLIENT;
    private static final long WAIT_SECONDS = 30;

    @Test
    void underConcurrencyEveryReplyReachesItsOwnRequest() throws Exception {
        everyReplyReachesItsOwnRequestUnderConcurrency(Echo.class);
    }

    /**
     * As above, from a listener on the poller thread, whose copied messages' deliveries are
     * reused for their buffers' next messages once their replies are sent: a delivery reused
     * too early would answer one request with another's content.
     */
    @Test
    void underConcurrencyEveryReplyFromThePollerThreadReachesItsOwnRequest() throws Exception {
        everyReplyReachesItsOwnRequestUnderConcurrency(EchoOnPollerThread.class);
    }

    /**
     * As above, from a listener whose every 50th invocation blocks for 2 ms: the threads that
     * took the requests run them, the polling changing hands without a wake-up while invocations
     * are short, through the watch when one blocks, and at once for a while after; a request handed
     * to the wrong invocation, or a reply taken by the wrong caller, would show here.
     */
    @Test
    void underConcurrencyEveryReplyFromAListenerThatSometimesBlocksReachesItsOwnRequest() throws Exception {
        everyReplyReachesItsOwnRequestUnderConcurrency(EchoThatSometimesBlocks.class);
    }

    private static void everyReplyReachesItsOwnRequestUnderConcurrency(Class<?> echo) throws Exception {
        try (AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(echo)) {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            int threads = 8;
            int requests = 1000;
            List<Future<List<String>>> callers = new ArrayList<>();
            try (ExecutorService threadPool = Executors.newFixedThreadPool(threads)) {
                for (int thread = 0; thread < threads; thread++) {
                    int caller = thread;
                    callers.add(threadPool.submit(() -> {
                        List<String> wrong = new ArrayList<>();
                        for (int i = 0; i < requests; i++) {
                            String request = caller + ":" + i;
                            byte[] reply = template.sendAndReceive(CLIENT, bytes(request))
                                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
                            if (!text(reply).equals("echo " + request)) {
                                wrong.add(request + " -> " + text(reply));
                            }
                        }
                        return wrong;
                    }));
                }
            }
            for (Future<List<String>> caller : callers) {
                assertThat(caller.get()).as("replies that answered another request").isEmpty();
            }
            assertThat(template.lateReplies()).isZero();
        }
    }

    /**
     * More requests than a channel may have awaiting replies at once, twice over: each times out,
     * and each leaves its slot, or the second round would find none free.
     */
    @Test
    void requestsThatGetNoReplyFailWithATimeoutWithinBoundAndLeaveNothingWaiting() throws Exception {
        try (AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(Silent.class)) {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            Duration timeout = Duration.ofMillis(300);
            for (int round = 0; round < 2; round++) {
                long start = System.nanoTime();
                List<CompletableFuture<byte[]>> requests = IntStream.range(0, PendingRequests.SLOTS)
                        .mapToObj(i -> template.sendAndReceive(CLIENT, bytes("unanswered " + i), timeout)).toList();
                for (CompletableFuture<byte[]> request : requests) {
                    Throwable failure = catchThrowable(() -> request.get(WAIT_SECONDS, TimeUnit.SECONDS));
                    assertThat(failure).isInstanceOf(ExecutionException.class)
                            .cause().isInstanceOf(RdmaReplyTimeoutException.class)
                            .hasMessageContaining("no reply on channel '" + CLIENT + "' within " + timeout);
                }
                long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(tookMillis).as("every request of round %d failed within its timeout and a margin", round)
                        .isBetween(timeout.toMillis(), timeout.toMillis() + 10_000);
            }
            assertThat(template.lateReplies()).isZero();
        }
    }

    /**
     * A request refused at the call (its payload does not fit the channel's buffers) leaves no
     * place taken among those awaiting replies: more of them than there are places, then one that
     * fits, which gets its reply, all long before their timeout could free a place.
     */
    @Test
    void requestsRefusedAtTheCallLeaveNoPlaceTaken() throws Exception {
        try (AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(Echo.class)) {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            byte[] tooLarge = new byte[SimulatedLoopback.BUFFER_SIZE + 1];
            for (int i = 0; i <= PendingRequests.SLOTS; i++) {
                assertThat(catchThrowable(() -> template.sendAndReceive(CLIENT, tooLarge, Duration.ofMinutes(10))
                        .get(WAIT_SECONDS, TimeUnit.SECONDS))).cause().isInstanceOf(PayloadTooLargeException.class);
            }
            assertThat(text(template.sendAndReceive(CLIENT, bytes("fits")).get(WAIT_SECONDS, TimeUnit.SECONDS)))
                    .isEqualTo("echo fits");
        }
    }

    @Test
    void aReplyThatComesAfterItsTimeoutIsDroppedAndCountedLate() throws Exception {
        try (AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(Slow.class)) {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);

            CompletableFuture<byte[]> request = template.sendAndReceive(CLIENT, bytes("slow"), Duration.ofMillis(100));

            assertThat(catchThrowable(() -> request.get(WAIT_SECONDS, TimeUnit.SECONDS)))
                    .cause().isInstanceOf(RdmaReplyTimeoutException.class);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (template.lateReplies() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(template.lateReplies()).isEqualTo(1);
            assertThat(text(template.sendAndReceive(CLIENT, bytes("next"), Duration.ofSeconds(WAIT_SECONDS))
                    .get(WAIT_SECONDS, TimeUnit.SECONDS))).as("the next request gets its own reply").isEqualTo("slow next");
        }
    }

    @Test
    void aListenerThatThrowsFailsTheRequestAtOnceWithTheTypeAndMessageOfWhatItThrew() {
        try (AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(Failing.class)) {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);

            CompletableFuture<byte[]> request = template.sendAndReceive(CLIENT, bytes("key-7"),
                    Duration.ofSeconds(WAIT_SECONDS));

            Throwable failure = catchThrowable(() -> request.get(5, TimeUnit.SECONDS));
            assertThat(failure).as("the error reply, well before the timeout").isInstanceOf(ExecutionException.class);
            assertThat(failure.getCause()).isInstanceOfSatisfying(RdmaRemoteException.class, remote -> {
                assertThat(remote.channel()).isEqualTo(CLIENT);
                assertThat(remote.remoteType()).isEqualTo(IllegalStateException.class.getName());
                assertThat(remote.remoteMessage()).isEqualTo("no value for key-7");
            });
        }
    }

    @Test
    void aChannelGoingDownFailsTheRequestsAwaitingRepliesAtOnceAndThoseMadeWhileItIsDown() throws Exception {
        try (AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(Silent.class)) {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            List<CompletableFuture<byte[]>> waiting = IntStream.range(0, 10)
                    .mapToObj(i -> template.sendAndReceive(CLIENT, bytes("pending " + i), Duration.ofSeconds(WAIT_SECONDS)))
                    .toList();
            Silent silent = context.getBean(Silent.class);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (silent.received.get() < 10 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(waiting).as("sent, and awaiting replies").noneMatch(CompletableFuture::isDone);

            context.getBean(RdmaChannels.class).down(CLIENT, "the peer went away");

            for (CompletableFuture<byte[]> request : waiting) {
                assertThat(request).as("failed by the time down() returned").isCompletedExceptionally();
                assertThat(catchThrowable(request::get).getCause()).isInstanceOfSatisfying(
                        RdmaChannelDownException.class, down -> {
                            assertThat(down.channel()).isEqualTo(CLIENT);
                            assertThat(down.state()).isEqualTo(ChannelState.DOWN);
                            assertThat(down).hasMessageContaining("the peer went away");
                        });
            }
            CompletableFuture<byte[]> whileDown = template.sendAndReceive(CLIENT, bytes("too late"));
            assertThat(whileDown).isCompletedExceptionally();
            assertThat(catchThrowable(whileDown::get)).cause().isInstanceOf(RdmaChannelDownException.class);
        }
    }

    /**
     * A send that races its channel's failure (the connection reset the queue pair for its
     * reconnection before the channel was seen down, so libibverbs refuses the post with EINVAL)
     * fails as the channel down, with the refusal as its cause, not as a raw verbs error.
     */
    @Test
    void aPostRefusedBecauseTheQueuePairLeftRtsFailsAsTheChannelDown() throws Exception {
        try (AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(Silent.class)) {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            RdmaChannel channel = Objects.requireNonNull(context.getBean(RdmaChannels.class).get(CLIENT));
            assertThat(channel.state()).isEqualTo(ChannelState.UP);

            channel.queuePair().reset();
            CompletableFuture<Void> sent = template.send(CLIENT, bytes("after the reset"));

            assertThat(catchThrowable(() -> sent.get(WAIT_SECONDS, TimeUnit.SECONDS)).getCause()).isInstanceOfSatisfying(
                    RdmaChannelDownException.class, down -> {
                        assertThat(down.channel()).isEqualTo(CLIENT);
                        assertThat(down).hasMessageContaining("RESET")
                                .cause().isInstanceOfSatisfying(VerbsException.class,
                                        refused -> assertThat(refused.errno()).isEqualTo(Errno.EINVAL));
                    });
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static class Echo {
        @RdmaListener(queuePair = SimulatedLoopback.SERVER)
        byte[] echo(byte[] request) {
            return bytes("echo " + text(request));
        }
    }

    static class EchoThatSometimesBlocks {
        private final AtomicInteger invocations = new AtomicInteger();

        @RdmaListener(queuePair = SimulatedLoopback.SERVER)
        byte[] echo(byte[] request) throws InterruptedException {
            if (invocations.incrementAndGet() % 50 == 0) {
                Thread.sleep(2);
            }
            return bytes("echo " + text(request));
        }
    }

    static class EchoOnPollerThread {
        @RdmaListener(queuePair = SimulatedLoopback.SERVER, onPollerThread = true)
        byte[] echo(byte[] request) {
            return bytes("echo " + text(request));
        }
    }

    /** Takes every request and answers none. */
    static class Silent {
        final AtomicInteger received = new AtomicInteger();

        @RdmaListener(queuePair = SimulatedLoopback.SERVER)
        void ignore(byte[] request) {
            received.incrementAndGet();
        }
    }

    /** Answers the first request only after its caller gave up on it (concurrency 1: the rest wait). */
    static class Slow {
        private final AtomicInteger calls = new AtomicInteger();

        @RdmaListener(queuePair = SimulatedLoopback.SERVER, concurrency = 1)
        byte[] answer(byte[] request) throws InterruptedException {
            if (calls.getAndIncrement() == 0) {
                Thread.sleep(500);
            }
            return bytes("slow " + text(request));
        }
    }

    static class Failing {
        @RdmaListener(queuePair = SimulatedLoopback.SERVER)
        byte[] lookUp(byte[] key) {
            throw new IllegalStateException("no value for " + text(key));
        }
    }
}

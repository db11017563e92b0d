package io.rdma.spring.template;

import io.rdma.spring.SimulatedLoopback;
import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.completion.CompletionPollers;
import io.rdma.spring.completion.CompletionRouter;
import io.rdma.spring.listener.ChannelReceivers;
import io.rdma.spring.naming.UnknownRdmaNameException;
import io.rdma.verbs.api.PooledBuffer;
import io.rdma.verbs.api.ReceiveWorkRequest;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import io.micrometer.observation.ObservationRegistry;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RdmaTemplate#sendAndForget}, the template alone, on a client whose send queue holds 4
 * work requests towards a server that posts no receive until the test does (so sends wait on RNR
 * retries and the send queue stays full, as in {@link WithdrawnOperationTests}), and whose sends
 * wait at most {@link #SEND_TIMEOUT} for room. What the call can tell at once it throws; what
 * happens later reaches the failure handler; sends without a future go out in the order they
 * were made, each with its own bytes, including those that waited for room (and so were carried
 * by objects that other sends had carried before).
 */
class ForgottenSendTests {

    private static final int SEND_QUEUE = 4;
    private static final Duration SEND_TIMEOUT = Duration.ofMillis(300);
    private static final long WAIT_MILLIS = 30_000;

    private record Failure(String channel, String operation, Throwable failure) {
    }

    private SimulatedLoopback loopback;
    private CompletionPollers pollers;
    private RdmaTemplate template;
    private final Queue<Failure> failures = new ConcurrentLinkedQueue<>();
    private final List<PooledBuffer> serverReceives = new ArrayList<>();

    @BeforeEach
    void startTheTemplateAlone() {
        loopback = new SimulatedLoopback(SEND_QUEUE, SEND_TIMEOUT);
        CompletionRouter router = new CompletionRouter();
        pollers = new CompletionPollers(loopback.resources(), router);
        RdmaChannels channels = new RdmaChannels(loopback.resources());
        template = new RdmaTemplate(channels, router, new ChannelReceivers(channels, router), ObservationRegistry.NOOP,
                null);
        template.setForgottenSendFailureHandler(
                (channel, operation, failure) -> failures.add(new Failure(channel, operation, failure)));
        pollers.start();
    }

    @AfterEach
    void stop() {
        pollers.stop();
        serverReceives.forEach(PooledBuffer::close);
        loopback.close();
    }

    @Test
    void sendsGoOutInTheOrderMadeWithTheirOwnBytesAlsoAfterWaitingForRoom() throws Exception {
        int messages = 5 * SEND_QUEUE;
        for (int round = 0; round < 2; round++) {
            // Posted one receive at a time, so that the sends wait for room between rounds, and the
            // second round is carried by the objects that the first round's settled sends left idle.
            for (int i = 0; i < messages / 2; i++) {
                long value = round * 1000L + i;
                template.sendAndForget(SimulatedLoopback.CLIENT, Long.BYTES,
                        segment -> segment.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value), i);
            }
            for (int i = 0; i < messages / 2; i++) {
                receiveOnTheServer(1);
            }
            awaitNoSendInFlight();
        }

        for (int i = 0; i < messages; i++) {
            long expected = (i / (messages / 2)) * 1000L + i % (messages / 2);
            assertThat(serverReceives.get(i).segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0))
                    .as("receive %d", i).isEqualTo(expected);
        }
        assertThat(failures).isEmpty();
        assertThat(template.forgottenSendFailures()).isZero();
    }

    @Test
    void aSendThatWaitsLongerThanTheSendTimeoutFailsThroughTheHandler() throws Exception {
        for (int i = 0; i < SEND_QUEUE + 2; i++) {
            template.sendAndForget(SimulatedLoopback.CLIENT, 8, segment -> segment.fill((byte) 7));
        }
        assertThat(loopback.client().outstandingSends()).as("the send queue is full").isEqualTo(SEND_QUEUE);

        awaitFailures(2);
        assertThat(failures).allSatisfy(failure -> {
            assertThat(failure.channel()).isEqualTo(SimulatedLoopback.CLIENT);
            assertThat(failure.operation()).isEqualTo("send");
            assertThat(failure.failure()).isInstanceOf(SendQueueFullException.class)
                    .hasMessageContaining("'" + SimulatedLoopback.CLIENT + "'");
        });
        assertThat(template.forgottenSendFailures()).isEqualTo(2);

        receiveOnTheServer(SEND_QUEUE);
        awaitNoSendInFlight();
        assertThat(failures).as("the posted ones went out").hasSize(2);
    }

    @Test
    void aWriterThatThrowsFailsItsOwnSendThroughTheHandlerAndTheNextOneGoesOut() throws Exception {
        IllegalStateException broken = new IllegalStateException("the writer broke");
        template.sendAndForget(SimulatedLoopback.CLIENT, 8, segment -> {
            throw broken;
        }, 3);
        template.sendAndForget(SimulatedLoopback.CLIENT, 8, segment -> segment.fill((byte) 9));
        receiveOnTheServer(1);
        awaitNoSendInFlight();

        assertThat(failures).singleElement().satisfies(failure -> {
            assertThat(failure.operation()).isEqualTo("send with immediate");
            assertThat(failure.failure()).isSameAs(broken);
        });
        assertThat(serverReceives.getFirst().segment().get(ValueLayout.JAVA_BYTE, 7)).isEqualTo((byte) 9);
    }

    @Test
    void whatTheCallCanTellAtOnceItThrowsAndNothingIsSent() {
        assertThatThrownBy(() -> template.sendAndForget("clinet", 8, segment -> { }))
                .isInstanceOf(UnknownRdmaNameException.class).hasMessageContaining("'" + SimulatedLoopback.CLIENT + "'");
        assertThatThrownBy(() -> template.sendAndForget(SimulatedLoopback.CLIENT, SimulatedLoopback.BUFFER_SIZE + 1,
                segment -> { })).isInstanceOf(PayloadTooLargeException.class);
        assertThatThrownBy(() -> template.sendAndForget(SimulatedLoopback.CLIENT, 8, segment -> { }, 1 << 30))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("top two bits");

        assertThat(loopback.client().outstandingSends()).isZero();
        assertThat(loopback.clientBuffers().leasedCount()).isZero();
        assertThat(failures).isEmpty();
    }

    /** Posts {@code count} receives on the server: the sends waiting on RNR go through, freeing their slots. */
    private void receiveOnTheServer(int count) {
        ReceiveWorkRequest receive = new ReceiveWorkRequest();
        for (int i = 0; i < count; i++) {
            PooledBuffer buffer = loopback.serverBuffers().lease();
            serverReceives.add(buffer);
            loopback.server().postReceive(receive.reset().wrId(serverReceives.size()).addSge(buffer, 0,
                    buffer.capacity()));
        }
    }

    /** Until every send has completed and returned its buffer: a forgotten send has no future to wait on. */
    private void awaitNoSendInFlight() throws InterruptedException {
        long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        while (loopback.clientBuffers().leasedCount() > 0 || loopback.client().outstandingSends() > 0) {
            assertThat(System.nanoTime() - giveUp).as("sends still in flight").isNegative();
            Thread.sleep(1);
        }
    }

    private void awaitFailures(int count) throws InterruptedException {
        long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        while (failures.size() < count) {
            assertThat(System.nanoTime() - giveUp).as("failures reported").isNegative();
            Thread.sleep(1);
        }
    }
}

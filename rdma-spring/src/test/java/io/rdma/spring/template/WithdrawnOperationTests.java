package io.rdma.spring.template;

import io.rdma.spring.SimulatedLoopback;
import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.completion.CompletionPollers;
import io.rdma.spring.completion.CompletionRouter;
import io.rdma.spring.listener.ChannelReceivers;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.PooledBuffer;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.RemoteBuffer;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;

import io.micrometer.observation.ObservationRegistry;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The template alone, on a client whose send queue holds 4 work requests, towards a server that
 * posts no receive until the test does: the client's sends wait on RNR retries (rnr_retry 7,
 * forever), so the send queue stays full, and operations made meanwhile wait for room. An
 * operation its caller gives up on while it waits is never posted; one that was posted is no
 * longer the caller's to cancel. The atomics' target is the server's memory, read directly.
 */
class WithdrawnOperationTests {

    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.nativeOrder());
    private static final int SEND_QUEUE = 4;
    private static final long WAIT_SECONDS = 30;

    private SimulatedLoopback loopback;
    private CompletionPollers pollers;
    private RdmaTemplate template;
    private PooledBuffer remoteMemory;
    private final List<PooledBuffer> serverReceives = new ArrayList<>();

    @BeforeEach
    void startTheTemplateAlone() {
        loopback = new SimulatedLoopback(SEND_QUEUE, Duration.ofSeconds(WAIT_SECONDS));
        RdmaResources resources = loopback.resources();
        CompletionRouter router = new CompletionRouter();
        pollers = new CompletionPollers(resources, router);
        RdmaChannels channels = new RdmaChannels(resources);
        template = new RdmaTemplate(channels, router, new ChannelReceivers(channels, router), ObservationRegistry.NOOP,
                null);
        pollers.start();
        remoteMemory = loopback.serverBuffers().lease();
        remoteMemory.segment().set(WORD, 0, 5L);
        remoteMemory.segment().set(WORD, 8, 0L);
    }

    @AfterEach
    void stop() {
        pollers.stop();
        serverReceives.forEach(PooledBuffer::close);
        remoteMemory.close();
        loopback.close();
    }

    @Test
    void anOperationGivenUpWhileItWaitsForRoomIsNeverPosted() throws Exception {
        List<CompletableFuture<Void>> held = fillTheSendQueue();
        CompletableFuture<Long> cancelled = template.compareAndSwap(SimulatedLoopback.CLIENT, word(0), 5L, 99L);
        CompletableFuture<Long> timedOut = template.compareAndSwap(SimulatedLoopback.CLIENT, word(0), 5L, 77L)
                .orTimeout(100, TimeUnit.MILLISECONDS);
        CompletableFuture<Long> kept = template.fetchAndAdd(SimulatedLoopback.CLIENT, word(8), 1L);

        assertThat(cancelled.cancel(true)).as("given up before it was posted").isTrue();
        assertThat(catchThrowable(() -> timedOut.get(WAIT_SECONDS, TimeUnit.SECONDS))).cause()
                .isInstanceOf(TimeoutException.class);
        assertThat(kept).as("still waiting for room").isNotDone();

        receiveOnTheServer(SEND_QUEUE);

        assertThat(kept.get(WAIT_SECONDS, TimeUnit.SECONDS)).as("posted once room appeared").isZero();
        CompletableFuture.allOf(held.toArray(CompletableFuture[]::new)).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(remoteMemory.segment().get(WORD, 8)).isEqualTo(1L);
        assertThat(remoteMemory.segment().get(WORD, 0)).as("neither compare-and-swap ran").isEqualTo(5L);
        assertThat(cancelled).isCancelled();
    }

    @Test
    void anOperationAlreadyPostedCannotBeCancelledAndCompletesWithItsOutcome() throws Exception {
        CompletableFuture<Void> stalled = template.send(SimulatedLoopback.CLIENT, new byte[] {1});
        CompletableFuture<Long> posted = template.compareAndSwap(SimulatedLoopback.CLIENT, word(0), 5L, 99L);
        assertThat(loopback.client().outstandingSends()).as("both posted, the swap behind the send").isEqualTo(2);

        assertThat(posted.cancel(true)).isFalse();
        assertThat(posted.completeExceptionally(new TimeoutException("given up"))).isFalse();
        assertThat(posted).isNotDone();

        receiveOnTheServer(1);

        assertThat(posted.get(WAIT_SECONDS, TimeUnit.SECONDS)).as("the value it swapped").isEqualTo(5L);
        stalled.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(remoteMemory.segment().get(WORD, 0)).isEqualTo(99L);
    }

    /** Sends that wait on the server's RNR NAKs, holding every slot of the client's send queue. */
    private List<CompletableFuture<Void>> fillTheSendQueue() {
        List<CompletableFuture<Void>> sends = IntStream.range(0, SEND_QUEUE)
                .mapToObj(i -> template.send(SimulatedLoopback.CLIENT, new byte[] {(byte) i})).toList();
        assertThat(loopback.client().outstandingSends()).isEqualTo(SEND_QUEUE);
        return sends;
    }

    private RemoteBuffer word(int offset) {
        return remoteMemory.remote().slice(offset, Long.BYTES);
    }

    /** Posts {@code count} receives on the server: the sends waiting on RNR go through, freeing their slots. */
    private void receiveOnTheServer(int count) {
        ReceiveWorkRequest receive = new ReceiveWorkRequest();
        for (int i = 0; i < count; i++) {
            PooledBuffer buffer = loopback.serverBuffers().lease();
            serverReceives.add(buffer);
            loopback.server().postReceive(receive.reset().wrId(i).addSge(buffer, 0, buffer.capacity()));
        }
    }
}

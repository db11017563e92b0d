package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionBatch;
import io.rdma.verbs.api.CompletionChannel;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionQueueOptions;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.ResourceClosedException;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Event-driven completion (verbs manual §5.4): sleep on the channel instead of spinning on the CQ. */
class CompletionChannelTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    private CompletionChannel channel;
    private CompletionQueue waitedOn;
    private QueuePair requester;
    private QueuePair responder;
    private MemoryRegion buffer;

    @BeforeEach
    void connectResponderWithAChannel() {
        channel = fabric.context().createCompletionChannel();
        waitedOn = fabric.context().createCompletionQueue(CompletionQueueOptions.of(64).withChannel(channel));
        requester = fabric.queuePair(QueuePairType.RC, fabric.completionQueue(64), null,
                LoopbackFabric.DEFAULT_CAPABILITIES);
        responder = fabric.queuePair(QueuePairType.RC, waitedOn, null, LoopbackFabric.DEFAULT_CAPABILITIES);
        fabric.connect(requester, responder, fabric.connectOptions());
        buffer = fabric.region(256);
    }

    @Test
    void awaitCompletionsWakesUpForASendPostedByAnotherThread() throws Exception {
        responder.postReceive(new ReceiveWorkRequest().wrId(33).addSge(buffer, 128, 128));
        Payloads.fill(buffer.segment(), 0, 40, 30);
        CompletionBatch batch = new CompletionBatch(4);

        CompletableFuture<Void> sender = CompletableFuture.runAsync(
                () -> requester.postSend(new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                        .addSge(buffer, 0, 40)));
        int arrived = waitedOn.awaitCompletions(batch, LoopbackFabric.WAIT);
        sender.get(LoopbackFabric.WAIT.toSeconds(), TimeUnit.SECONDS);

        assertThat(arrived).isEqualTo(1);
        assertThat(batch.size()).isEqualTo(1);
        assertThat(batch.get(0).wrId()).isEqualTo(33);
        assertThat(batch.get(0).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(batch.get(0).opcode()).isEqualTo(CompletionOpcode.RECV);
        assertThat(batch.get(0).byteLength()).isEqualTo(40);
        Payloads.assertFilled(buffer.segment(), 128, 40, 30);
        assertThat(Completions.awaitOne(requester.sendCompletionQueue()).status()).isEqualTo(CompletionStatus.SUCCESS);
    }

    @Test
    void awaitCompletionsReturnsZeroWhenTheTimeoutPassesFirst() throws Exception {
        CompletionBatch batch = new CompletionBatch(4);

        int arrived = waitedOn.awaitCompletions(batch, Duration.ofMillis(200));

        assertThat(arrived).isZero();
        assertThat(batch.size()).isZero();
    }

    @Test
    void armedQueueSignalsItsChannelOnTheNextCompletion() throws Exception {
        responder.postReceive(new ReceiveWorkRequest().wrId(1).addSge(buffer, 0, 256));
        waitedOn.requestNotify(false);

        requester.postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED)).addSge(buffer, 0, 8));
        Optional<CompletionQueue> signalled = channel.awaitEvent(LoopbackFabric.WAIT);

        assertThat(signalled).containsSame(waitedOn);
        assertThat(Completions.awaitOne(waitedOn).wrId()).isEqualTo(1);
    }

    @Test
    void waitingOnAQueueWithoutAChannelIsRefused() {
        CompletionQueue polledOnly = requester.sendCompletionQueue();

        VerbsErrors.expectFailure("ibv_get_cq_event", Errno.EINVAL,
                () -> polledOnly.awaitCompletions(new CompletionBatch(1), Duration.ofMillis(10)));
        VerbsErrors.expectFailure("ibv_req_notify_cq", Errno.EINVAL, () -> polledOnly.requestNotify(false));
    }

    @Test
    void closingTheChannelWakesAThreadWaitingOnItWithResourceClosed() throws Exception {
        for (int round = 0; round < 20; round++) {
            CompletionChannel waited = fabric.context().createCompletionChannel();
            long start = System.nanoTime();

            Throwable ended = CloseRace.closeWhileBlocked(waited, () -> waited.awaitEvent(Duration.ofMinutes(10)));

            assertThat(ended).as("round %d", round).isInstanceOf(ResourceClosedException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the close does not wait out the wait")
                    .isLessThan(LoopbackFabric.WAIT);
            assertThat(waited.isClosed()).isTrue();
        }
    }

    @Test
    void closingTheContextWakesAThreadAwaitingCompletions() throws Exception {
        CompletionBatch batch = new CompletionBatch(4);

        Throwable ended = CloseRace.closeWhileBlocked(fabric.context(),
                () -> waitedOn.awaitCompletions(batch, Duration.ofMinutes(10)));

        assertThat(ended).isInstanceOf(ResourceClosedException.class);
        assertThat(channel.isClosed()).isTrue();
        assertThat(waitedOn.isClosed()).isTrue();
    }
}

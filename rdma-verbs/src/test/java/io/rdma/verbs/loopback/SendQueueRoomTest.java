package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.ResourceClosedException;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.VerbsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Waiting for send-queue room instead of failing: {@code tryPostSend} answers false on a full
 * queue and posts nothing, {@code awaitSendRoom} parks until a polled completion (or a reset)
 * frees slots, and gives up after its timeout.
 */
class SendQueueRoomTest {

    private static final Duration NO_ROOM_EXPECTED = Duration.ofMillis(50);
    private static final Duration UNWOKEN_WAITER_TIMEOUT = Duration.ofMinutes(5);

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @Test
    void tryPostSendOnAFullQueuePostsNothingAndSucceedsOnceCompletionsArePolled() {
        Loopback loopback = fullQueue(4);
        QueuePair requester = loopback.requester();
        int depth = requester.capabilities().maxSendWr();
        MemoryRegion buffer = fabric.region(64);

        assertThat(requester.tryPostSend(new SendWorkRequest().wrId(999).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(buffer, 0, 8))).isFalse();
        assertThat(requester.outstandingSends()).isEqualTo(depth);

        List<Completion> filled = Completions.await(loopback.requesterCq(), depth);
        assertThat(filled).extracting(Completion::wrId).doesNotContain(999L);
        assertThat(requester.outstandingSends()).isZero();
        assertThat(requester.tryPostSend(new SendWorkRequest().wrId(1000).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(buffer, 0, 8))).isTrue();
        // The send queue completes in order: a posted 999 would complete before 1000.
        Completion next = Completions.awaitOne(loopback.requesterCq());
        assertThat(next.wrId()).isEqualTo(1000);
        assertThat(next.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(Completions.await(loopback.responderCq(), depth + 1))
                .allSatisfy(completion -> assertThat(completion.status()).isEqualTo(CompletionStatus.SUCCESS));
    }

    @Test
    void tryPostSendStillThrowsForRealErrors() {
        fabric.assumeOutOfBandConnect("posts on a QP in RESET expecting EINVAL (libsiw's refused doorbell returns no"
                + " errno)");
        Loopback loopback = fabric.pair(QueuePairType.RC, QueuePairCapabilities.of(4, 16));
        QueuePair requester = loopback.requester();
        MemoryRegion buffer = fabric.region(64);

        VerbsErrors.expectFailure("ibv_post_send", Errno.EINVAL,
                () -> requester.tryPostSend(new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                        .addSge(buffer, 0, 8)));

        loopback.connect(fabric.connectOptions());
        SendWorkRequest chain = null;
        for (int i = requester.capabilities().maxSendWr(); i >= 0; i--) {
            chain = new SendWorkRequest().wrId(500 + i).addSge(buffer, 0, 8).append(chain);
        }
        SendWorkRequest longerThanTheQueue = chain;
        VerbsException neverFits = VerbsErrors.expectFailure("ibv_post_send", Errno.ENOMEM,
                () -> requester.tryPostSend(longerThanTheQueue));
        assertThat(neverFits.badWorkRequestId()).isEqualTo(500);
        assertThat(neverFits.advice()).contains("max_send_wr");
        assertThat(requester.outstandingSends()).isZero();
    }

    @Test
    void awaitSendRoomAnswersAtOnceWhenThereIsRoomAndFalseWhenNoneIsFreedInTime() throws Exception {
        Loopback loopback = fabric.pair(QueuePairType.RC, QueuePairCapabilities.of(4, 16))
                .connect(fabric.connectOptions());
        QueuePair requester = loopback.requester();
        assertThat(requester.awaitSendRoom(requester.capabilities().maxSendWr(), Duration.ZERO)).isTrue();

        fill(loopback);
        assertThat(requester.awaitSendRoom(1, NO_ROOM_EXPECTED)).as("nobody polls the send CQ").isFalse();
        assertThat(requester.outstandingSends()).isEqualTo(requester.capabilities().maxSendWr());
    }

    @Test
    void awaitSendRoomIsWokenByThePollThatRetiresCompletions() throws Exception {
        Loopback loopback = fullQueue(4);
        QueuePair requester = loopback.requester();
        int depth = requester.capabilities().maxSendWr();

        Future<Boolean> waiter = parkedWaiterForRoom(requester, depth);
        Completions.await(loopback.requesterCq(), depth);

        assertThat(waiter.get(LoopbackFabric.WAIT.toSeconds(), TimeUnit.SECONDS))
                .as("woken with room long before its own timeout").isTrue();
    }

    @Test
    void awaitSendRoomIsWokenByAReset() throws Exception {
        Loopback loopback = fullQueue(4);
        QueuePair requester = loopback.requester();

        Future<Boolean> waiter = parkedWaiterForRoom(requester, 1);
        requester.reset();

        assertThat(waiter.get(LoopbackFabric.WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(requester.outstandingSends()).isZero();
    }

    @Test
    void awaitSendRoomOnAQueuePairClosedWhileWaitingThrows() throws Exception {
        Loopback loopback = fullQueue(4);
        QueuePair requester = loopback.requester();

        Future<Boolean> waiter = parkedWaiterForRoom(requester, 1);
        requester.close();

        assertThatThrownBy(() -> waiter.get(LoopbackFabric.WAIT.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(ResourceClosedException.class);
        assertThatThrownBy(() -> requester.awaitSendRoom(1, Duration.ZERO))
                .isInstanceOf(ResourceClosedException.class);
    }

    @Test
    void awaitSendRoomRefusesASlotCountTheQueueCanNeverHave() {
        QueuePair requester = fabric.pair(QueuePairType.RC, QueuePairCapabilities.of(4, 16)).requester();
        int depth = requester.capabilities().maxSendWr();

        assertThatThrownBy(() -> requester.awaitSendRoom(depth + 1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(String.valueOf(depth));
        assertThatThrownBy(() -> requester.awaitSendRoom(0, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * A connected pair whose requester has posted a signaled send into every slot of a send
     * queue of {@code depth} (or what the device granted), none of them polled yet.
     */
    private Loopback fullQueue(int depth) {
        Loopback loopback = fabric.pair(QueuePairType.RC, QueuePairCapabilities.of(depth, 4 * depth))
                .connect(fabric.connectOptions());
        fill(loopback);
        return loopback;
    }

    private void fill(Loopback loopback) {
        QueuePair requester = loopback.requester();
        int depth = requester.capabilities().maxSendWr();
        MemoryRegion buffer = fabric.region(64);
        for (int i = 0; i <= depth; i++) {
            loopback.responder().postReceive(new ReceiveWorkRequest().wrId(i).addSge(buffer, 0, 64));
        }
        SendWorkRequest wr = new SendWorkRequest();
        for (int i = 0; i < depth; i++) {
            assertThat(requester.tryPostSend(wr.reset().wrId(i).flags(EnumSet.of(SendFlag.SIGNALED))
                    .addSge(buffer, 0, 8))).as("send %d", i).isTrue();
        }
        assertThat(requester.outstandingSends()).isEqualTo(depth);
    }

    /**
     * Starts a thread waiting for {@code slots} free slots with a timeout far beyond the test's
     * bound, and returns once it is parked: a waiter that is not woken fails the test's
     * {@link LoopbackFabric#WAIT} instead of returning when its own timeout passes.
     */
    private static Future<Boolean> parkedWaiterForRoom(QueuePair qp, int slots) throws InterruptedException {
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                result.complete(qp.awaitSendRoom(slots, UNWOKEN_WAITER_TIMEOUT));
            } catch (Throwable failure) {
                result.completeExceptionally(failure);
            }
        });
        long deadline = System.nanoTime() + LoopbackFabric.WAIT.toNanos();
        while (waiter.getState() != Thread.State.TIMED_WAITING && !result.isDone()) {
            assertThat(System.nanoTime()).as("the waiter parks").isLessThan(deadline);
            Thread.sleep(1);
        }
        assertThat(result).as("the send queue is full, so the waiter waits").isNotDone();
        return result;
    }
}

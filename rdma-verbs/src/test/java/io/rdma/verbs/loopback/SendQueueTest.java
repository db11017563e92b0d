package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.VerbsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.EnumSet;
import java.util.List;
import java.util.stream.LongStream;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Send-queue depth (verbs manual §7.1.6): an unsignaled WR holds its slot until a later signaled
 * completion is polled, so posting must signal now and then and poll the send CQ.
 */
class SendQueueTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @Test
    void chainWithOnlyTheLastSignaledPostsAllAndCompletesOnce() {
        int count = 16;
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        MemoryRegion source = fabric.region(count * 64L);
        MemoryRegion target = fabric.region(count * 64L);
        SendWorkRequest first = null;
        SendWorkRequest last = null;
        for (int i = 0; i < count; i++) {
            Payloads.fill(source.segment(), i * 64L, 64, 100 + i);
            loopback.responder().postReceive(new ReceiveWorkRequest().wrId(i).addSge(target, i * 64L, 64));
            SendWorkRequest wr = new SendWorkRequest().wrId(1000 + i).addSge(source, i * 64L, 64);
            if (last == null) {
                first = wr;
            } else {
                last.append(wr);
            }
            last = wr;
        }
        last.flags(EnumSet.of(SendFlag.SIGNALED));

        loopback.requester().postSend(first);
        assertThat(loopback.requester().outstandingSends()).isEqualTo(count);

        List<Completion> received = Completions.await(loopback.responderCq(), count);
        Completion sent = Completions.awaitOne(loopback.requesterCq());
        assertThat(sent.wrId()).isEqualTo(1000 + count - 1);
        assertThat(sent.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(Completions.pollNow(loopback.requesterCq())).as("unsignaled WRs complete silently").isEmpty();
        assertThat(loopback.requester().outstandingSends()).isZero();
        assertThat(received).extracting(Completion::wrId)
                .containsExactlyElementsOf(LongStream.range(0, count).boxed().toList());
        for (int i = 0; i < count; i++) {
            Payloads.assertFilled(target.segment(), i * 64L, 64, 100 + i);
        }
    }

    @Test
    void thousandSendsFlowThroughAQueueOf128WithPeriodicSignaling() {
        int total = 1000;
        int signalEvery = 32;
        Loopback loopback = fabric.pair(QueuePairType.RC, QueuePairCapabilities.of(128, 1024))
                .connect(fabric.connectOptions());
        QueuePair requester = loopback.requester();
        int depth = requester.capabilities().maxSendWr();
        MemoryRegion source = fabric.region(total * 4L);
        MemoryRegion target = fabric.region(total * 4L);
        for (int i = 0; i < total; i++) {
            source.segment().setAtIndex(JAVA_INT, i, i);
            loopback.responder().postReceive(new ReceiveWorkRequest().wrId(i).addSge(target, i * 4L, 4));
        }

        SendWorkRequest wr = new SendWorkRequest();
        int signaledCompletions = 0;
        int highestOutstanding = 0;
        for (int i = 0; i < total; i++) {
            while (requester.outstandingSends() == depth) {
                signaledCompletions += expectSuccesses(List.of(Completions.awaitOne(loopback.requesterCq())));
            }
            boolean signaled = i % signalEvery == signalEvery - 1 || i == total - 1;
            requester.postSend(wr.reset().wrId(i)
                    .flags(signaled ? EnumSet.of(SendFlag.SIGNALED) : EnumSet.noneOf(SendFlag.class))
                    .addSge(source, i * 4L, 4));
            highestOutstanding = Math.max(highestOutstanding, requester.outstandingSends());
        }
        int expectedSignaled = total / signalEvery + (total % signalEvery == 0 ? 0 : 1);
        signaledCompletions += expectSuccesses(
                Completions.await(loopback.requesterCq(), expectedSignaled - signaledCompletions));

        List<Completion> received = Completions.await(loopback.responderCq(), total);
        assertThat(signaledCompletions).isEqualTo(expectedSignaled);
        assertThat(requester.outstandingSends()).isZero();
        assertThat(highestOutstanding).isLessThanOrEqualTo(depth);
        for (int i = 0; i < total; i++) {
            Completion completion = received.get(i);
            assertThat(completion.status()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(completion.wrId()).as("receives complete in order").isEqualTo(i);
            assertThat(target.segment().getAtIndex(JAVA_INT, i)).isEqualTo(i);
        }
    }

    @Test
    void postingBeyondTheDepthIsRefusedUntilASignaledCompletionIsPolled() {
        Loopback loopback = fabric.pair(QueuePairType.RC, QueuePairCapabilities.of(16, 64))
                .connect(fabric.connectOptions());
        QueuePair requester = loopback.requester();
        int depth = requester.capabilities().maxSendWr();
        MemoryRegion buffer = fabric.region(64);
        for (int i = 0; i <= depth + 1; i++) {
            loopback.responder().postReceive(new ReceiveWorkRequest().wrId(i).addSge(buffer, 0, 64));
        }
        SendWorkRequest wr = new SendWorkRequest();
        for (int i = 0; i < depth - 1; i++) {
            requester.postSend(wr.reset().wrId(i).addSge(buffer, 0, 8));
        }
        requester.postSend(wr.reset().wrId(depth - 1).flags(EnumSet.of(SendFlag.SIGNALED)).addSge(buffer, 0, 8));
        assertThat(requester.outstandingSends()).isEqualTo(depth);

        VerbsException full = VerbsErrors.expectFailure("ibv_post_send", Errno.ENOMEM,
                () -> requester.postSend(wr.reset().wrId(777).flags(EnumSet.of(SendFlag.SIGNALED))
                        .addSge(buffer, 0, 8)));
        assertThat(full.hasBadWorkRequest()).isTrue();
        assertThat(full.badWorkRequestId()).isEqualTo(777);
        assertThat(full.advice()).isNotBlank();
        assertThat(requester.outstandingSends()).isEqualTo(depth);

        Completion signaled = Completions.awaitOne(loopback.requesterCq());
        assertThat(signaled.wrId()).isEqualTo(depth - 1);
        assertThat(requester.outstandingSends()).isZero();
        requester.postSend(wr.reset().wrId(778).flags(EnumSet.of(SendFlag.SIGNALED)).addSge(buffer, 0, 8));
        assertThat(Completions.awaitOne(loopback.requesterCq()).wrId()).isEqualTo(778);
        assertThat(Completions.await(loopback.responderCq(), depth + 1))
                .allSatisfy(completion -> assertThat(completion.status()).isEqualTo(CompletionStatus.SUCCESS));
    }

    @Test
    void chainLongerThanTheFreeSlotsIsRefusedWholeNamingItsFirstRequest() {
        Loopback loopback = fabric.pair(QueuePairType.RC, QueuePairCapabilities.of(8, 64))
                .connect(fabric.connectOptions());
        QueuePair requester = loopback.requester();
        int depth = requester.capabilities().maxSendWr();
        MemoryRegion buffer = fabric.region(64);
        SendWorkRequest next = null;
        for (int i = depth; i >= 0; i--) {
            next = new SendWorkRequest().wrId(500 + i).addSge(buffer, 0, 8).append(next);
        }
        SendWorkRequest chain = next;

        VerbsException refused = VerbsErrors.expectFailure("ibv_post_send", Errno.ENOMEM, () -> requester
                .postSend(chain));
        assertThat(refused.badWorkRequestId()).isEqualTo(500);
        assertThat(requester.outstandingSends()).isZero();
        assertThat(Completions.pollNow(loopback.requesterCq())).isEmpty();
        assertThat(Completions.pollNow(loopback.responderCq())).isEmpty();
    }

    /**
     * The selective-signaling loop of verbs manual §7.1.6, with wr_id 0 on every WR, as applications
     * that need no id for unsignaled WRs post it: the signaled completion frees the whole chain,
     * however often wr_ids repeat.
     */
    @Test
    void selectiveSignalingWithRepeatedWrIdsFreesEveryChainItCompletes() {
        Loopback loopback = fabric.pair(QueuePairType.RC, QueuePairCapabilities.of(16, 512))
                .connect(fabric.connectOptions());
        QueuePair requester = loopback.requester();
        int depth = requester.capabilities().maxSendWr();
        int chains = 8;
        MemoryRegion buffer = fabric.region(64);
        for (int i = 0; i < chains * depth; i++) {
            loopback.responder().postReceive(new ReceiveWorkRequest().wrId(i).addSge(buffer, 0, 64));
        }
        SendWorkRequest wr = new SendWorkRequest();
        for (int chain = 0; chain < chains; chain++) {
            for (int i = 0; i < depth; i++) {
                requester.postSend(wr.reset().wrId(0)
                        .flags(i == depth - 1 ? EnumSet.of(SendFlag.SIGNALED) : EnumSet.noneOf(SendFlag.class))
                        .addSge(buffer, 0, 8));
            }
            Completion signaled = Completions.awaitOne(loopback.requesterCq());
            assertThat(signaled.status()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(requester.outstandingSends()).as("after chain %d", chain).isZero();
        }
        assertThat(Completions.await(loopback.responderCq(), chains * depth))
                .allSatisfy(completion -> assertThat(completion.status()).isEqualTo(CompletionStatus.SUCCESS));
    }

    /** A chain posted as one list with repeated wr_ids: one signaled completion frees all of it. */
    @Test
    void chainedSelectiveSignalingWithRepeatedWrIdsFreesTheWholeChain() {
        Loopback loopback = fabric.pair(QueuePairType.RC, QueuePairCapabilities.of(16, 512))
                .connect(fabric.connectOptions());
        QueuePair requester = loopback.requester();
        int depth = requester.capabilities().maxSendWr();
        MemoryRegion buffer = fabric.region(64);
        for (int i = 0; i < 6 * depth; i++) {
            loopback.responder().postReceive(new ReceiveWorkRequest().wrId(i).addSge(buffer, 0, 64));
        }
        SendWorkRequest[] chain = new SendWorkRequest[depth];
        for (int i = 0; i < depth; i++) {
            chain[i] = new SendWorkRequest().wrId(5).addSge(buffer, 0, 8);
            if (i > 0) {
                chain[0].append(chain[i]);
            }
        }
        chain[depth - 1].flags(EnumSet.of(SendFlag.SIGNALED));
        for (int round = 0; round < 6; round++) {
            requester.postSend(chain[0]);
            assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(requester.outstandingSends()).as("after chain %d", round).isZero();
        }
    }

    private static int expectSuccesses(List<Completion> completions) {
        assertThat(completions).allSatisfy(c -> assertThat(c.status()).isEqualTo(CompletionStatus.SUCCESS));
        return completions.size();
    }
}

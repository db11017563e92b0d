package io.rdma.verbs.loopback;

import io.rdma.verbs.api.AsyncEvent;
import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.SharedReceiveQueue;
import io.rdma.verbs.api.SharedReceiveQueueAttributes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** One SRQ feeding the receives of two QPs (verbs manual §8), and its limit event. */
class SharedReceiveQueueTest {

    private static final int SLOT = 64;

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    private SharedReceiveQueue srq;
    private CompletionQueue receiveCq;
    private QueuePair firstResponder;
    private QueuePair secondResponder;
    private QueuePair firstRequester;
    private QueuePair secondRequester;
    private MemoryRegion buffers;

    @BeforeEach
    void twoConnectionsIntoOneSrq() {
        srq = fabric.pd().createSharedReceiveQueue(SharedReceiveQueueAttributes.of(32, 0));
        receiveCq = fabric.completionQueue(64);
        firstResponder = fabric.queuePair(QueuePairType.RC, receiveCq, srq, LoopbackFabric.DEFAULT_CAPABILITIES);
        secondResponder = fabric.queuePair(QueuePairType.RC, receiveCq, srq, LoopbackFabric.DEFAULT_CAPABILITIES);
        firstRequester = fabric.queuePair(QueuePairType.RC, fabric.completionQueue(64), null,
                LoopbackFabric.DEFAULT_CAPABILITIES);
        secondRequester = fabric.queuePair(QueuePairType.RC, fabric.completionQueue(64), null,
                LoopbackFabric.DEFAULT_CAPABILITIES);
        fabric.connect(firstRequester, firstResponder, fabric.connectOptions());
        fabric.connect(secondRequester, secondResponder, fabric.connectOptions());
        buffers = fabric.region(32L * SLOT);
    }

    @Test
    void bothQueuePairsConsumeReceivesOfTheSharedQueue() {
        postReceives(8);
        for (int i = 0; i < 2; i++) {
            send(firstRequester, 100 + i);
            send(secondRequester, 200 + i);
        }

        List<Completion> received = Completions.await(receiveCq, 4);
        assertThat(received).allSatisfy(c -> assertThat(c.status()).isEqualTo(CompletionStatus.SUCCESS));
        assertThat(received).filteredOn(c -> c.qpNumber() == firstResponder.qpNumber()).hasSize(2);
        assertThat(received).filteredOn(c -> c.qpNumber() == secondResponder.qpNumber()).hasSize(2);
        assertThat(received).extracting(Completion::wrId).doesNotHaveDuplicates();
        assertThat(received).extracting(c -> seedIn(c.wrId())).containsExactlyInAnyOrder(100, 101, 200, 201);
        assertThat(Completions.await(firstRequester.sendCompletionQueue(), 2)).hasSize(2);
        assertThat(Completions.await(secondRequester.sendCompletionQueue(), 2)).hasSize(2);
    }

    @Test
    void droppingBelowTheLimitRaisesTheLimitEventOnceAndDisarms() throws InterruptedException {
        assumeFalse(fabric.isIwarp(), fabric.deviceName() + " is siw, whose libsiw has no ibv_query_srq (EOPNOTSUPP),"
                + " which the test reads the SRQ's limit and size with");
        postReceives(8);
        srq.armLimit(6);
        assertThat(srq.query().limit()).isEqualTo(6);

        send(firstRequester, 100);
        send(secondRequester, 200);
        send(firstRequester, 101);
        Completions.await(receiveCq, 3);

        AsyncEvent event = fabric.awaitEvent(AsyncEventType.SRQ_LIMIT_REACHED, e -> e.resource() == srq);
        assertThat(event.resource()).isSameAs(srq);
        assertThat(srq.query().limit()).as("the limit disarms once reached").isZero();
    }

    @Test
    void queuePairsOfAnSrqRefuseTheirOwnReceives() {
        VerbsErrors.expectFailure("ibv_post_recv", Errno.EINVAL,
                () -> firstResponder.postReceive(new ReceiveWorkRequest().wrId(1).addSge(buffers, 0, SLOT)));
    }

    @Test
    void fullSrqRefusesMoreReceives() {
        assumeFalse(fabric.isIwarp(), fabric.deviceName() + " is siw, whose libsiw has no ibv_query_srq (EOPNOTSUPP),"
                + " which the test reads the SRQ's limit and size with");
        int capacity = srq.query().maxWr();
        postReceives(capacity);

        VerbsErrors.expectFailure("ibv_post_srq_recv", Errno.ENOMEM,
                () -> srq.postReceive(new ReceiveWorkRequest().wrId(99).addSge(buffers, 0, SLOT)));
    }

    private void postReceives(int count) {
        for (int i = 0; i < count; i++) {
            srq.postReceive(new ReceiveWorkRequest().wrId(i % 32).addSge(buffers, (long) (i % 32) * SLOT, SLOT));
        }
    }

    /** Sends 16 bytes of the pattern of {@code seed}, so the receive slot shows which message landed there. */
    private void send(QueuePair requester, int seed) {
        MemoryRegion source = fabric.region(16);
        Payloads.fill(source.segment(), 0, 16, seed);
        requester.postSend(new SendWorkRequest().wrId(seed).flags(EnumSet.of(SendFlag.SIGNALED)).addSge(source, 0, 16));
    }

    private int seedIn(long slot) {
        for (int seed : new int[] {100, 101, 200, 201}) {
            if (Payloads.holds(buffers.segment(), slot * SLOT, 16, seed)) {
                return seed;
            }
        }
        return -1;
    }
}

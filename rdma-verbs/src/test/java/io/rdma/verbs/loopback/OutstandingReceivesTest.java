package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code QueuePair.outstandingReceives()}: what a shutdown waits on after moving a QP to ERR,
 * counted up by posts and down by polls of the receive CQ, flushes included.
 */
class OutstandingReceivesTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @Test
    void countsPostedReceivesUntilTheirCompletionsArePolledFlushesIncluded() {
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        MemoryRegion source = fabric.region(64);
        MemoryRegion target = fabric.region(256);
        ReceiveWorkRequest chain = new ReceiveWorkRequest().wrId(1).addSge(target, 0, 64);
        chain.append(new ReceiveWorkRequest().wrId(2).addSge(target, 64, 64));
        loopback.responder().postReceive(chain);
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(3).addSge(target, 128, 64));
        assertThat(loopback.responder().outstandingReceives()).isEqualTo(3);

        loopback.requester().postSend(new SendWorkRequest().wrId(9).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(source, 0, 32));
        assertThat(Completions.awaitOne(loopback.responderCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(loopback.responder().outstandingReceives()).isEqualTo(2);

        loopback.responder().toError();
        List<Completion> flushed = Completions.await(loopback.responderCq(), 2);
        assertThat(flushed).extracting(Completion::status).containsOnly(CompletionStatus.WR_FLUSH_ERR);
        assertThat(loopback.responder().outstandingReceives()).isZero();
    }

    @Test
    void aResetDiscardsPostedReceivesWithoutCompletions() {
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        MemoryRegion target = fabric.region(64);
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(target, 0, 64));

        loopback.responder().reset();

        assertThat(loopback.responder().outstandingReceives()).isZero();
    }
}

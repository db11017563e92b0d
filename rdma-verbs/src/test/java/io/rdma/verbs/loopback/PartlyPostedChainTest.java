package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.SharedReceiveQueue;
import io.rdma.verbs.api.SharedReceiveQueueAttributes;
import io.rdma.verbs.api.VerbsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A chain refused part-way (verbs manual §7.1, §7.2): {@code bad_wr} names the first WR that
 * was not posted, and the WRs before it were posted and run ("Failed to post recv WRs, first
 * bad: wr_id"), as {@code ibv_post_send} of libibverbs' providers rings the doorbell for them.
 */
class PartlyPostedChainTest {

    private static final String NATIVE_REFUSES_WHOLE = "the native provider checks a receive WR's SGE count and "
            + "the free room itself (ReceiveRequestArray.fill) and refuses such a chain whole, before libibverbs";

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    /** An atomic whose local SGE is not 8 bytes is invalid (§7.1.4); rxe's driver refuses it, not the library. */
    @Test
    void sendsBeforeTheRefusedRequestArePostedAndComplete() {
        assumeTrue(fabric.deviceAttributes().supportsAtomics(), "the device reports no atomics");
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        MemoryRegion source = fabric.region(4096);
        MemoryRegion target = fabric.region(4096);
        Payloads.fill(source.segment(), 0, 512, 31);
        SendWorkRequest write = new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.RDMA_WRITE).addSge(source, 0, 512).remote(target.remote(0, 512));
        SendWorkRequest shortAtomic = new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).addSge(source, 1024, 4).remote(target.remote(1024, 8))
                .atomic(1, 0);

        VerbsException refused = VerbsErrors.expectFailure("ibv_post_send", Errno.EINVAL,
                () -> loopback.requester().postSend(write.append(shortAtomic)));

        assertThat(refused.hasBadWorkRequest()).isTrue();
        assertThat(refused.badWorkRequestId()).isEqualTo(2);
        assertThat(refused.postedWorkRequests()).isEqualTo(1);
        Completion written = Completions.awaitOne(loopback.requesterCq());
        assertThat(written.wrId()).isEqualTo(1);
        assertThat(written.status()).isEqualTo(CompletionStatus.SUCCESS);
        Payloads.assertFilled(target.segment(), 0, 512, 31);
        assertThat(Completions.pollNow(loopback.requesterCq())).as("the refused atomic completes nothing").isEmpty();
        assertThat(loopback.requester().outstandingSends()).isZero();
    }

    @Test
    void receivesBeforeTheRefusedRequestArePostedAndTakeMessages() {
        assumeTrue(fabric.isSimulated(), NATIVE_REFUSES_WHOLE);
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        MemoryRegion buffers = fabric.region(4096);

        VerbsException refused = VerbsErrors.expectFailure("ibv_post_recv", Errno.EINVAL,
                () -> loopback.responder().postReceive(new ReceiveWorkRequest().wrId(11).addSge(buffers, 0, 64)
                        .append(tooManySges(12, buffers, loopback.responder().capabilities().maxRecvSge()))));

        assertThat(refused.badWorkRequestId()).isEqualTo(12);
        assertThat(refused.postedWorkRequests()).isEqualTo(1);
        assertThat(loopback.responder().outstandingReceives()).isEqualTo(1);
        assertReceivedInto(loopback.requester(), loopback.responderCq(), 11);
        assertThat(loopback.responder().outstandingReceives()).isZero();
    }

    @Test
    void sharedReceivesBeforeTheRefusedRequestArePostedAndTakeMessages() {
        assumeTrue(fabric.isSimulated(), NATIVE_REFUSES_WHOLE);
        SharedReceiveQueue srq = fabric.pd().createSharedReceiveQueue(SharedReceiveQueueAttributes.of(16, 0));
        CompletionQueue receiveCq = fabric.completionQueue(64);
        QueuePair requester = fabric.queuePair(QueuePairType.RC, fabric.completionQueue(64), null,
                LoopbackFabric.DEFAULT_CAPABILITIES);
        QueuePair responder = fabric.queuePair(QueuePairType.RC, receiveCq, srq, LoopbackFabric.DEFAULT_CAPABILITIES);
        fabric.connect(requester, responder, fabric.connectOptions());
        MemoryRegion buffers = fabric.region(4096);

        VerbsException refused = VerbsErrors.expectFailure("ibv_post_srq_recv", Errno.EINVAL,
                () -> srq.postReceive(new ReceiveWorkRequest().wrId(21).addSge(buffers, 0, 64)
                        .append(tooManySges(22, buffers, srq.query().maxSge()))));

        assertThat(refused.badWorkRequestId()).isEqualTo(22);
        assertThat(refused.postedWorkRequests()).isEqualTo(1);
        assertReceivedInto(requester, receiveCq, 21);
    }

    private static ReceiveWorkRequest tooManySges(long wrId, MemoryRegion buffers, int granted) {
        ReceiveWorkRequest wr = new ReceiveWorkRequest(granted + 1).wrId(wrId);
        for (int i = 0; i <= granted; i++) {
            wr.addSge(buffers, 1024 + i * 8L, 8);
        }
        return wr;
    }

    /** A send from {@code requester} lands in the receive {@code wrId}, the only one posted. */
    private void assertReceivedInto(QueuePair requester, CompletionQueue receiveCq, long wrId) {
        MemoryRegion source = fabric.region(64);
        requester.postSend(new SendWorkRequest().wrId(9).flags(EnumSet.of(SendFlag.SIGNALED)).addSge(source, 0, 64));

        Completion received = Completions.awaitOne(receiveCq);
        assertThat(received.wrId()).isEqualTo(wrId);
        assertThat(received.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(Completions.awaitOne(requester.sendCompletionQueue()).status()).isEqualTo(CompletionStatus.SUCCESS);
    }
}

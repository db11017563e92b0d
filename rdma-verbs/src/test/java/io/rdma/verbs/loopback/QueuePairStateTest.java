package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.ConnectOptions;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.Mtu;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairAttributes;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The QP state machine (verbs manual §6.2) as posting and {@code ibv_modify_qp} see it. */
class QueuePairStateTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    private Loopback loopback;
    private ConnectOptions options;
    private MemoryRegion buffer;

    @BeforeEach
    void unconnectedPair() {
        loopback = fabric.pair(QueuePairType.RC);
        options = fabric.connectOptions().toBuilder().pathMtu(Mtu.MTU_1024).build();
        buffer = fabric.region(4096);
    }

    @ParameterizedTest
    @EnumSource(value = QueuePairState.class, names = {"RESET", "INIT", "RTR", "SQD"})
    void sendBeforeReadyToSendIsInvalid(QueuePairState state) {
        fabric.assumeOutOfBandConnect("walks a QP to " + state + " with ibv_modify_qp (iWARP has no RTR, and its RESET"
                + " and INIT are one state)");
        if (state == QueuePairState.SQD) {
            assumeTrue(fabric.isSimulated(), "the IB spec lets a device accept sends posted in SQD (they go out "
                    + "once the QP resumes); only the simulated fabric refuses them");
        }
        QueuePair requester = loopback.requester();
        walkTo(requester, state);

        VerbsErrors.expectFailure("ibv_post_send", Errno.EINVAL,
                () -> requester.postSend(new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                        .addSge(buffer, 0, 8)));
        assertThat(requester.state()).isEqualTo(state);
        assertThat(requester.outstandingSends()).isZero();
    }

    /**
     * A send refused before RTS is not posted at all: it does not run once the QP is connected.
     * rxe's libibverbs provider writes the WR into the send queue before the kernel refuses the
     * doorbell, so a refused WR used to run with the next one posted in RTS, its buffer long given
     * to someone else (a remote atomic or read writing into it, a write sending what it holds now).
     * RC runs a QP's sends in order, so a WR left behind would complete before the next one.
     */
    @ParameterizedTest
    @EnumSource(value = QueuePairState.class, names = {"RESET", "INIT", "RTR"})
    void aSendRefusedBeforeReadyToSendNeverRunsOnceConnected(QueuePairState state) {
        fabric.assumeOutOfBandConnect("walks a QP to " + state + " with ibv_modify_qp (iWARP has no RTR, and its RESET"
                + " and INIT are one state)");
        QueuePair requester = loopback.requester();
        QueuePair responder = loopback.responder();
        walkTo(requester, state);
        Payloads.fill(buffer.segment(), 0, 64, 11);
        VerbsErrors.expectFailure("ibv_post_send", Errno.EINVAL,
                () -> requester.postSend(new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                        .addSge(buffer, 0, 64)));

        responder.connect(requester.localEndpoint(options), options);
        if (state == QueuePairState.RESET) {
            requester.toInit(options);
        }
        if (state != QueuePairState.RTR) {
            requester.toReadyToReceive(responder.localEndpoint(options), options);
        }
        requester.toReadyToSend(options);
        responder.postReceive(new ReceiveWorkRequest().wrId(10).addSge(buffer, 1024, 64));
        responder.postReceive(new ReceiveWorkRequest().wrId(11).addSge(buffer, 2048, 64));
        Payloads.fill(buffer.segment(), 64, 64, 22);
        Payloads.fill(buffer.segment(), 128, 64, 33);
        requester.postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED)).addSge(buffer, 64, 64));
        requester.postSend(new SendWorkRequest().wrId(3).flags(EnumSet.of(SendFlag.SIGNALED)).addSge(buffer, 128, 64));

        List<Completion> sent = Completions.await(loopback.requesterCq(), 2);
        assertThat(sent).extracting(Completion::wrId).containsExactly(2L, 3L);
        assertThat(sent).allSatisfy(c -> assertThat(c.status()).isEqualTo(CompletionStatus.SUCCESS));
        assertThat(Completions.await(loopback.responderCq(), 2)).extracting(Completion::wrId).containsExactly(10L, 11L);
        Payloads.assertFilled(buffer.segment(), 1024, 64, 22);
        Payloads.assertFilled(buffer.segment(), 2048, 64, 33);
    }

    @Test
    void receiveInResetIsInvalid() {
        assumeFalse(fabric.isIwarp(), fabric.deviceName() + " is iWARP: its RESET and INIT are one state (siw's IDLE),"
                + " in which receives are posted before the connection");
        VerbsErrors.expectFailure("ibv_post_recv", Errno.EINVAL,
                () -> loopback.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(buffer, 0, 64)));
    }

    @Test
    void receivePostedInInitIsUsedOnceConnected() {
        loopback.responder().toInit(options);
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(5).addSge(buffer, 1024, 64));
        Payloads.fill(buffer.segment(), 0, 64, 50);

        fabric.connect(loopback.requester(), loopback.responder(), options);
        loopback.requester().postSend(new SendWorkRequest().wrId(6).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(buffer, 0, 64));

        Completion received = Completions.awaitOne(loopback.responderCq());
        assertThat(received.wrId()).isEqualTo(5);
        assertThat(received.status()).isEqualTo(CompletionStatus.SUCCESS);
        Payloads.assertFilled(buffer.segment(), 1024, 64, 50);
    }

    @Test
    void skippingAStateIsAnInvalidTransition() {
        fabric.assumeOutOfBandConnect("walks a QP through the InfiniBand state machine");
        QueuePair qp = loopback.requester();
        VerbsErrors.expectFailure("ibv_modify_qp", Errno.EINVAL,
                () -> qp.modify(QueuePairAttributes.builder().state(QueuePairState.RTS).sendPsn(0).build()));
        assertThat(qp.state()).isEqualTo(QueuePairState.RESET);

        qp.toInit(options);
        VerbsErrors.expectFailure("ibv_modify_qp", Errno.EINVAL, () -> qp.toReadyToSend(options));
        assertThat(qp.state()).isEqualTo(QueuePairState.INIT);
    }

    @Test
    void connectedQueuePairReportsItsAttributes() {
        assumeFalse(fabric.isIwarp(), fabric.deviceName() + " is iWARP: its QP has no destination QPN or path MTU to"
                + " report (siw's ibv_query_qp gives 0; the TCP connection is the path)");
        loopback.connect(options);

        QueuePairAttributes attributes = loopback.requester().query();
        assertThat(attributes.state()).isEqualTo(QueuePairState.RTS);
        assertThat(attributes.destQpNumber()).isEqualTo(loopback.responder().qpNumber());
        assertThat(attributes.pathMtu()).isEqualTo(Mtu.MTU_1024);
        assertThat(attributes.port()).isEqualTo(fabric.port());
        assertThat(loopback.responder().state()).isEqualTo(QueuePairState.RTS);
    }

    @Test
    void sendPostedInErrorCompletesAsFlushed() {
        assumeFalse(fabric.isIwarp(), fabric.deviceName() + " is siw, which flushes a send posted in ERR only for"
                + " kernel QPs: a user QP's doorbell carries no WR to flush (siw_post_send, siw_sq_flush_wr), so it never"
                + " completes");
        loopback.connect(options);
        loopback.requester().toError();

        loopback.requester().postSend(new SendWorkRequest().wrId(7).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(buffer, 0, 8));

        Completion flushed = Completions.awaitOne(loopback.requesterCq());
        assertThat(flushed.wrId()).isEqualTo(7);
        assertThat(flushed.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
        assertThat(loopback.requester().outstandingSends()).isZero();
    }

    @Test
    void receivePostedInErrorCompletesAsFlushed() {
        assumeTrue(fabric.isSimulated(), "rxe's ibv_post_recv does not enter the kernel, which flushes a receive "
                + "posted in ERR only when its receive side happens to run again (2 of 5 runs on rxe0); "
                + "receives outstanding when the QP enters ERR are flushed everywhere (next test)");
        loopback.connect(options);
        loopback.responder().toError();

        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(8).addSge(buffer, 0, 64));

        Completion flushed = Completions.awaitOne(loopback.responderCq());
        assertThat(flushed.wrId()).isEqualTo(8);
        assertThat(flushed.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
    }

    @Test
    void movingToErrorFlushesEveryOutstandingReceive() {
        loopback.connect(options);
        for (int i = 0; i < 3; i++) {
            loopback.responder().postReceive(new ReceiveWorkRequest().wrId(40 + i).addSge(buffer, 0, 64));
        }

        loopback.responder().toError();

        assertThat(loopback.responder().state()).isEqualTo(QueuePairState.ERR);
        List<Completion> flushed = Completions.await(loopback.responderCq(), 3);
        assertThat(flushed).extracting(Completion::wrId).containsExactly(40L, 41L, 42L);
        assertThat(flushed).allSatisfy(c -> assertThat(c.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR));
    }

    @Test
    void destroyingAQueuePairFlushesItsReceivesToItsOpenQueue() {
        assumeTrue(fabric.isSimulated(), "a device may discard the completions of WRs outstanding at "
                + "ibv_destroy_qp (QpHandle.destroy); movingToErrorFlushesEveryOutstandingReceive is the portable way");
        loopback.connect(options);
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(60).addSge(buffer, 0, 64));
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(61).addSge(buffer, 0, 64));

        loopback.responder().close();

        List<Completion> flushed = Completions.await(loopback.responderCq(), 2);
        assertThat(flushed).extracting(Completion::wrId).containsExactly(60L, 61L);
        assertThat(flushed).allSatisfy(c -> assertThat(c.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR));
    }

    @Test
    void resetEmptiesTheQueuesWithoutCompletions() {
        fabric.assumeOutOfBandConnect("moves a connected QP back to RESET with ibv_modify_qp");
        loopback.connect(options);
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(buffer, 0, 64));

        loopback.responder().reset();

        assertThat(loopback.responder().state()).isEqualTo(QueuePairState.RESET);
        assertThat(Completions.pollNow(loopback.responderCq())).isEmpty();
    }

    private void walkTo(QueuePair qp, QueuePairState state) {
        if (state == QueuePairState.RESET) {
            return;
        }
        if (state == QueuePairState.SQD) {
            loopback.connect(options);
            qp.modify(QueuePairAttributes.builder().state(QueuePairState.SQD).build());
            return;
        }
        qp.toInit(options);
        if (state == QueuePairState.RTR) {
            qp.toReadyToReceive(loopback.responder().localEndpoint(fabric.connectOptions()), options);
        }
    }
}

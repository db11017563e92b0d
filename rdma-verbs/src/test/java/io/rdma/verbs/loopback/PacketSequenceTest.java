package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.ConnectOptions;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * Packet sequence numbers of an RC connection (verbs manual §6.2.2 {@code rq_psn}, §6.2.3 {@code sq_psn};
 * IBA 9.7.1): each request packet takes the requester's next PSN, and the responder takes only
 * the packet carrying the PSN it expects. Both ends count one PSN per packet of the path MTU; an
 * RDMA read counts one per response packet.
 */
class PacketSequenceTest {

    private static final int RESPONDER_EXPECTS = 100;
    private static final int RESPONDER_SENDS = 200;
    /** ~1 ms ACK timeout and one retry, so that running out of retries takes no noticeable time. */
    private static final int SHORT_ACK_TIMEOUT = 8;
    private static final int ONE_RETRY = 1;

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @ParameterizedTest
    @CsvSource({"SEND, 10000, 10", "SEND, 0, 1", "RDMA_WRITE, 2048, 2", "RDMA_READ, 3000, 3"})
    void everyPacketAdvancesBothEndsByOne(SendOpcode opcode, int bytes, int packets) {
        assumeFalse(fabric.isIwarp(), fabric.deviceName() + " is iWARP, which has no packet sequence numbers (TCP's"
                + " sequence numbers order the stream)");
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        MemoryRegion local = fabric.region(10000);
        MemoryRegion remote = fabric.region(10000);
        int sendPsnBefore = loopback.requester().query().sendPsn();
        int receivePsnBefore = loopback.responder().query().receivePsn();
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(remote, 0, 10000));

        loopback.requester().postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(opcode).addSge(local, 0, bytes)
                .remote(remote.remote(0, Math.max(bytes, 1))));

        assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(loopback.requester().query().sendPsn()).as("sq_psn").isEqualTo(sendPsnBefore + packets);
        assertThat(loopback.responder().query().receivePsn()).as("rq_psn").isEqualTo(receivePsnBefore + packets);
    }

    /**
     * The responder NAKs the first out-of-sequence request (a class B error: nothing else
     * happens to it) and ignores the retries; the requester's ACK timer runs out {@code retry_cnt}
     * times (verbs manual §13.2: RETRY_EXC_ERR for a wrong PSN).
     */
    @Test
    void requesterAheadOfTheExpectedPsnRunsOutOfRetries() {
        fabric.assumeOutOfBandConnect("advertises a PSN the requester does not start from");
        Loopback loopback = fabric.pair(QueuePairType.RC);
        ConnectOptions options = fabric.connectOptions().toBuilder().retries(SHORT_ACK_TIMEOUT, ONE_RETRY, 7, 12)
                .build();
        MemoryRegion buffer = fabric.region(64);
        ConnectOptions responderOptions = options.toBuilder().sendPsn(RESPONDER_SENDS).build();
        // the requester advertises the PSN the responder will expect, then starts 1000 ahead of it
        ConnectOptions advertised = options.toBuilder().sendPsn(RESPONDER_EXPECTS).build();
        loopback.responder().connect(loopback.requester().localEndpoint(advertised), responderOptions);
        loopback.requester().connect(loopback.responder().localEndpoint(responderOptions),
                options.toBuilder().sendPsn(RESPONDER_EXPECTS + 1000).build());
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(buffer, 0, 64));

        loopback.requester().postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(buffer, 0, 32));

        Completion failed = Completions.awaitOne(loopback.requesterCq());
        assertThat(failed.wrId()).isEqualTo(2);
        assertThat(failed.status()).isEqualTo(CompletionStatus.RETRY_EXC_ERR);
        QueuePairStates.awaitState(loopback.requester(), QueuePairState.ERR);
        assertThat(Completions.pollNow(loopback.responderCq())).as("nothing was received").isEmpty();
        assertThat(loopback.responder().state()).isEqualTo(QueuePairState.RTS);
    }
}

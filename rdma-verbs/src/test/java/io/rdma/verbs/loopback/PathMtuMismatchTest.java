package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.ConnectOptions;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.Mtu;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The two ends of an RC connection set different {@code path_mtu}s (verbs manual §6.2.2). The
 * responder checks every request packet against its own path MTU (IBA C9-92, as rxe's
 * {@code check_length} does): a first or middle packet must carry exactly the path MTU, an only
 * or last packet at most that. Anything else is an invalid request (class C): the requester's WR
 * completes with {@code IBV_WC_REM_INV_REQ_ERR} and both QPs go to ERR.
 */
class PathMtuMismatchTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    private Mtu larger;
    private Mtu smaller;

    @Test
    void messageOfOnePacketAtEitherMtuGetsThrough() {
        Loopback loopback = connect(true);
        MemoryRegion buffer = fabric.region(2L * larger.bytes());
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(buffer, 0, 2 * larger.bytes()));

        loopback.requester().postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(buffer, 0, smaller.bytes()));

        assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(Completions.awaitOne(loopback.responderCq()).byteLength()).isEqualTo(smaller.bytes());
    }

    @ParameterizedTest(name = "requester has the larger MTU: {0}")
    @ValueSource(booleans = {true, false})
    void multiPacketMessageIsAnInvalidRequest(boolean requesterHasTheLargerMtu) {
        Loopback loopback = connect(requesterHasTheLargerMtu);
        MemoryRegion buffer = fabric.region(2L * larger.bytes());
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(buffer, 0, 2 * larger.bytes()));

        loopback.requester().postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(buffer, 0, 2 * larger.bytes()));

        Completion failed = Completions.awaitOne(loopback.requesterCq());
        assertThat(failed.wrId()).isEqualTo(2);
        assertThat(failed.status()).isEqualTo(CompletionStatus.REM_INV_REQ_ERR);
        QueuePairStates.awaitState(loopback.requester(), QueuePairState.ERR);
        Completion receive = Completions.awaitOne(loopback.responderCq());
        assertThat(receive.wrId()).isEqualTo(1);
        assertThat(receive.status()).as("the responder's receive never completes successfully")
                .isNotEqualTo(CompletionStatus.SUCCESS);
    }

    /** The port's active MTU at one end, the next smaller one at the other. */
    private Loopback connect(boolean requesterHasTheLargerMtu) {
        fabric.assumeOutOfBandConnect("gives each side its own path MTU");
        larger = fabric.portAttributes().activeMtu();
        assumeTrue(larger != Mtu.MTU_256, "the port's active MTU is the smallest there is");
        smaller = Mtu.of(larger.value() - 1);
        Loopback loopback = fabric.pair(QueuePairType.RC);
        ConnectOptions options = fabric.connectOptions();
        var requesterEnd = loopback.requester().localEndpoint(options);
        var responderEnd = loopback.responder().localEndpoint(options);
        loopback.requester().connect(responderEnd, options.toBuilder()
                .pathMtu(requesterHasTheLargerMtu ? larger : smaller).build());
        loopback.responder().connect(requesterEnd, options.toBuilder()
                .pathMtu(requesterHasTheLargerMtu ? smaller : larger).build());
        return loopback;
    }
}

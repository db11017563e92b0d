package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.ConnectOptions;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePairEndpoint;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * An RC QP connected to a destination that no port has: nothing ever answers its requests, so
 * the ACK timer runs out {@code retry_cnt} times and the WR completes with RETRY_EXC_ERR (verbs
 * manual §13.2: "wrong LID/GID"), the QP in ERR.
 */
class UnreachableDestinationTest {

    /** The highest unicast LID (IBA 4.1.3: 0x0001-0xBFFF): a subnet manager assigns from the low end. */
    private static final int UNASSIGNED_LID = 0xBFFF;
    /** ~1 ms ACK timeout (4.096 µs × 2^8) and one retry, so that running out of retries takes no noticeable time. */
    private static final int SHORT_ACK_TIMEOUT = 8;
    private static final int ONE_RETRY = 1;

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @Test
    void sendToALidNoPortHasExhaustsRetries() {
        assumeTrue(fabric.linkLayer() == LinkLayer.INFINIBAND, "LIDs address InfiniBand ports; on Ethernet (RoCE) "
                + "a destination is a GID, and an unreachable one fails the connect (neighbour resolution)");
        assumeTrue(fabric.portAttributes().lid() != UNASSIGNED_LID, "the port itself has LID 0xBFFF");
        ConnectOptions options = fabric.connectOptions().toBuilder().retries(SHORT_ACK_TIMEOUT, ONE_RETRY, 7, 1)
                .build();
        Loopback loopback = fabric.pair(QueuePairType.RC);
        QueuePairEndpoint responder = loopback.responder().localEndpoint(options);
        loopback.requester().connect(new QueuePairEndpoint(responder.qpNumber(), UNASSIGNED_LID, responder.gid(),
                responder.packetSequenceNumber()), options);
        MemoryRegion source = fabric.region(4096);

        loopback.requester().postSend(new SendWorkRequest().wrId(3).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(source, 0, 2048));

        Completion failed = Completions.awaitOne(loopback.requesterCq());
        assertThat(failed.wrId()).isEqualTo(3);
        assertThat(failed.status()).isEqualTo(CompletionStatus.RETRY_EXC_ERR);
        assertThat(loopback.requester().state()).isEqualTo(QueuePairState.ERR);
    }
}

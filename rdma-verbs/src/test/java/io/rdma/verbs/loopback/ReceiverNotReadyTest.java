package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;

/** RC sends that find no receive posted: RNR NAKs, retried {@code rnr_retry} times (7 = forever). */
class ReceiverNotReadyTest {

    /** The shortest RNR timer encoding (0.01 ms), so that giving up takes no noticeable time. */
    private static final int SHORT_RNR_TIMER = 1;

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @Test
    void finiteRnrRetryGivesUpWithRnrRetryExceeded() {
        Loopback loopback = fabric.pair(QueuePairType.RC)
                .connect(fabric.connectOptions().toBuilder().retries(14, 7, 1, SHORT_RNR_TIMER).build());
        MemoryRegion buffer = fabric.region(64);

        loopback.requester().postSend(new SendWorkRequest().wrId(3).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(buffer, 0, 32));

        Completion failed = Completions.awaitOne(loopback.requesterCq());
        assertThat(failed.wrId()).isEqualTo(3);
        assertThat(failed.status()).isEqualTo(CompletionStatus.RNR_RETRY_EXC_ERR);
        QueuePairStates.awaitState(loopback.requester(), QueuePairState.ERR);
    }

    @Test
    void infiniteRnrRetryDeliversOnceAReceiveIsPosted() {
        Loopback loopback = fabric.pair(QueuePairType.RC)
                .connect(fabric.connectOptions().toBuilder().retries(14, 7, 7, SHORT_RNR_TIMER).build());
        MemoryRegion source = fabric.region(64);
        MemoryRegion target = fabric.region(64);
        Payloads.fill(source.segment(), 0, 32, 80);

        loopback.requester().postSend(new SendWorkRequest().wrId(4).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(source, 0, 32));
        assertThat(Completions.pollNow(loopback.requesterCq())).as("no receive yet, so no completion").isEmpty();
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(5).addSge(target, 0, 64));

        Completion sent = Completions.awaitOne(loopback.requesterCq());
        Completion received = Completions.awaitOne(loopback.responderCq());
        assertThat(sent.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(received.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(received.byteLength()).isEqualTo(32);
        Payloads.assertFilled(target.segment(), 0, 32, 80);
    }
}

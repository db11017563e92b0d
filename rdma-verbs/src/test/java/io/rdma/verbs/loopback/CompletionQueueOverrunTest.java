package io.rdma.verbs.loopback;

import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.CompletionBatch;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;

/** A CQ smaller than the completions it is sent (verbs manual §5.2): the CQ errs instead of losing them quietly. */
class CompletionQueueOverrunTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @Test
    void overrunRaisesCqErrorAndFailsThePoll() throws InterruptedException {
        CompletionQueue small = fabric.completionQueue(4);
        int capacity = small.capacity();
        QueuePair requester = fabric.queuePair(QueuePairType.RC, small, null,
                QueuePairCapabilities.of(capacity + 1, 4));
        QueuePair responder = fabric.queuePair(QueuePairType.RC, fabric.completionQueue(16), null,
                QueuePairCapabilities.of(4, 4));
        fabric.connect(requester, responder, fabric.connectOptions());
        MemoryRegion buffer = fabric.region(64);

        for (int i = 0; i <= capacity; i++) {
            requester.postSend(new SendWorkRequest().wrId(i).flags(EnumSet.of(SendFlag.SIGNALED))
                    .opcode(SendOpcode.RDMA_WRITE).addSge(buffer, 0, 8)
                    .remote(buffer.remote(32, 8)));
        }

        assertThat(fabric.awaitEvent(AsyncEventType.CQ_ERR, e -> e.resource() == small)).isNotNull();
        VerbsErrors.expectFailure("ibv_poll_cq", Errno.EOVERFLOW, () -> small.poll(new CompletionBatch(8)));
    }
}

package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionQueueOptions;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Completion timestamps ({@code ibv_create_cq_ex} with {@code IBV_WC_EX_WITH_COMPLETION_TIMESTAMP}). */
class CompletionTimestampTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @Test
    void completionsOfATimestampingQueueCarryAMonotonicDeviceClock() {
        assumeTrue(fabric.deviceAttributes().completionTimestamps(), "the device reports no completion timestamps");
        CompletionQueue stamped = fabric.context().createCompletionQueue(CompletionQueueOptions.of(64)
                .withTimestamps());
        List<Completion> completions = writeThreeTimes(stamped);

        assertThat(completions).allSatisfy(c -> {
            assertThat(c.status()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(c.timestamp()).isNotNegative();
        });
        assertThat(completions).extracting(Completion::timestamp).isSorted();
    }

    @Test
    void completionsOfAPlainQueueHaveNoTimestamp() {
        List<Completion> completions = writeThreeTimes(fabric.completionQueue(64));

        assertThat(completions).extracting(Completion::timestamp).containsOnly(-1L);
    }

    private List<Completion> writeThreeTimes(CompletionQueue cq) {
        QueuePair requester = fabric.queuePair(QueuePairType.RC, cq, null, LoopbackFabric.DEFAULT_CAPABILITIES);
        QueuePair responder = fabric.queuePair(QueuePairType.RC, fabric.completionQueue(64), null,
                LoopbackFabric.DEFAULT_CAPABILITIES);
        fabric.connect(requester, responder, fabric.connectOptions());
        MemoryRegion source = fabric.region(64);
        MemoryRegion target = fabric.region(64);
        for (int i = 0; i < 3; i++) {
            requester.postSend(new SendWorkRequest().wrId(i).flags(EnumSet.of(SendFlag.SIGNALED))
                    .opcode(SendOpcode.RDMA_WRITE).addSge(source, 0, 64)
                    .remote(target.remote()));
        }
        return Completions.await(cq, 3);
    }
}

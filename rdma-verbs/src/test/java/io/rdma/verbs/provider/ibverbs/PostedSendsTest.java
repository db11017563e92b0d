package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.SendOpcode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A completion retires its WR and the unsignaled ones before it (verbs manual §7.1.6), each with its
 * own opcode, so software completion counters count them by kind.
 */
class PostedSendsTest {

    private record Retired(SendOpcode opcode, boolean success) {
    }

    @Test
    void anErrorCompletionRetiresTheUnsignaledRunBeforeItAsSuccesses() {
        PostedSends sends = new PostedSends(8);
        sends.record(0, SendOpcode.SEND, false);
        sends.record(0, SendOpcode.RDMA_WRITE, false);
        sends.record(3, SendOpcode.RDMA_READ, false);
        sends.record(4, SendOpcode.SEND, true);
        List<Retired> retired = new ArrayList<>();

        assertThat(sends.failedOpcode(3)).isEqualTo(SendOpcode.RDMA_READ);
        sends.retire(3, false, (opcode, success) -> retired.add(new Retired(opcode, success)));

        assertThat(retired).containsExactly(new Retired(SendOpcode.SEND, true),
                new Retired(SendOpcode.RDMA_WRITE, true), new Retired(SendOpcode.RDMA_READ, false));
        assertThat(sends.failedOpcode(3)).as("retired").isNull();
        assertThat(sends.failedOpcode(4)).isEqualTo(SendOpcode.SEND);
    }

    @Test
    void repeatedWrIdsRetireEveryChainOfSelectiveSignaling() {
        PostedSends sends = new PostedSends(4);
        List<Retired> retired = new ArrayList<>();
        for (int chain = 0; chain < 10; chain++) {
            for (int i = 0; i < 4; i++) {
                sends.record(0, SendOpcode.SEND, i == 3);
            }
            sends.retire(0, true, (opcode, success) -> retired.add(new Retired(opcode, success)));
        }
        assertThat(retired).hasSize(40).allSatisfy(r -> assertThat(r.success()).isTrue());
        assertThat(sends.failedOpcode(0)).as("nothing outstanding").isNull();
    }
}

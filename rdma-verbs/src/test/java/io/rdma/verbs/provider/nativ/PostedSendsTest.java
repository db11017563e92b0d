package io.rdma.verbs.provider.nativ;

import io.rdma.verbs.api.SendOpcode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A completion retires its WR and the unsignaled ones before it, and only those. */
class PostedSendsTest {

    private record Retired(SendOpcode opcode, boolean success) {
    }

    @Test
    void aSignaledCompletionRetiresTheUnsignaledRunBeforeIt() {
        PostedSends sends = new PostedSends(8);
        sends.record(1, SendOpcode.SEND);
        sends.record(2, SendOpcode.RDMA_WRITE);
        sends.record(3, SendOpcode.RDMA_READ);
        sends.record(4, SendOpcode.SEND);
        List<Retired> retired = new ArrayList<>();
        sends.retireThrough(3, false, (opcode, success) -> retired.add(new Retired(opcode, success)));
        assertThat(retired).containsExactly(new Retired(SendOpcode.SEND, true),
                new Retired(SendOpcode.RDMA_WRITE, true), new Retired(SendOpcode.RDMA_READ, false));
        assertThat(sends.opcodeOf(3)).isNull();
        assertThat(sends.opcodeOf(4)).isEqualTo(SendOpcode.SEND);
    }

    @Test
    void anUnknownWrIdRetiresNothingAndRefusedWorkRequestsAreForgotten() {
        PostedSends sends = new PostedSends(4);
        sends.record(1, SendOpcode.SEND);
        sends.record(2, SendOpcode.SEND);
        sends.unrecord(1);
        List<Retired> retired = new ArrayList<>();
        sends.retireThrough(2, true, (opcode, success) -> retired.add(new Retired(opcode, success)));
        assertThat(retired).isEmpty();
        assertThat(sends.opcodeOf(1)).isEqualTo(SendOpcode.SEND);
        sends.clear();
        assertThat(sends.opcodeOf(1)).isNull();
    }

    @Test
    void theRingWrapsAroundItsCapacity() {
        PostedSends sends = new PostedSends(3);
        List<Retired> retired = new ArrayList<>();
        for (long wrId = 0; wrId < 100; wrId++) {
            sends.record(wrId, SendOpcode.SEND);
            sends.retireThrough(wrId, true, (opcode, success) -> retired.add(new Retired(opcode, success)));
        }
        assertThat(retired).hasSize(100);
    }
}

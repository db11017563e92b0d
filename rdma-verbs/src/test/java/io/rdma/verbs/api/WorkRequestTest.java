package io.rdma.verbs.api;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** Reusable send and receive work requests: bounded SGE lists, a full reset, unsigned lengths. */
class WorkRequestTest {

    @Test
    void sendRequestHoldsAtMostItsSgeCapacity() {
        SendWorkRequest wr = new SendWorkRequest(2).addSge(0x1000, 8, 1).addSge(0x2000, 16, 1);

        assertThat(wr.sgeCount()).isEqualTo(2);
        assertThat(wr.totalLength()).isEqualTo(24);
        assertThatIllegalStateException().isThrownBy(() -> wr.addSge(0x3000, 8, 1))
                .withMessageContaining("at most 2").withMessageContaining("new SendWorkRequest(maxSge)");
        assertThat(wr.sge(0x4000, 4, 2).sgeCount()).as("sge(...) replaces the list").isEqualTo(1);
    }

    @Test
    void resetRestoresTheDefaultsOfANewRequest() {
        SendWorkRequest wr = new SendWorkRequest().wrId(5).opcode(SendOpcode.RDMA_WRITE).flags(SendFlag.FENCE)
                .immediateData(9).remote(0x10, 3).atomic(1, 2).sge(0x1000, 8, 1).next(new SendWorkRequest());

        wr.reset();

        assertThat(wr.wrId()).isZero();
        assertThat(wr.opcode()).isEqualTo(SendOpcode.SEND);
        assertThat(wr.isSignaled()).isTrue();
        assertThat(wr.sgeCount()).isZero();
        assertThat(wr.remoteAddress()).isZero();
        assertThat(wr.compareAdd()).isZero();
        assertThat(wr.next()).isNull();
    }

    @Test
    void inlineMarksTheRequestInlineAndNeedsNoLkey() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(12);
            SendWorkRequest wr = new SendWorkRequest().inline(data);

            assertThat(wr.hasFlag(SendFlag.INLINE)).isTrue();
            assertThat(wr.isSignaled()).isTrue();
            assertThat(wr.sgeAddress(0)).isEqualTo(data.address());
            assertThat(wr.sgeLength(0)).isEqualTo(12);
            assertThat(wr.sgeLkey(0)).isZero();
        }
    }

    @Test
    void lengthsAreUnsignedAsInTheVerbsStructs() {
        SendWorkRequest send = new SendWorkRequest(2).addSge(0, -1, 0).addSge(0, 1, 0);
        ReceiveWorkRequest receive = new ReceiveWorkRequest(1).addSge(0, -1, 0);

        assertThat(send.totalLength()).isEqualTo(0x1_0000_0000L);
        assertThat(receive.totalLength()).isEqualTo(0xFFFF_FFFFL);
    }

    @Test
    void receiveRequestHoldsAtMostItsSgeCapacity() {
        ReceiveWorkRequest wr = new ReceiveWorkRequest().sge(0x1000, 64, 3);

        assertThatIllegalStateException().isThrownBy(() -> wr.addSge(0x2000, 8, 3)).withMessageContaining("at most 1");
        assertThat(wr.sgeLkey(0)).isEqualTo(3);
    }

    @Test
    void opcodesKnowTheirTransportsAndCompletions() {
        assertThat(SendOpcode.RDMA_READ.allowedOn(QueuePairType.UC)).isFalse();
        assertThat(SendOpcode.RDMA_WRITE_WITH_IMM.allowedOn(QueuePairType.UC)).isTrue();
        assertThat(SendOpcode.RDMA_WRITE.allowedOn(QueuePairType.UD)).isFalse();
        assertThat(SendOpcode.SEND_WITH_IMM.allowedOn(QueuePairType.RAW_PACKET)).isFalse();
        assertThat(SendOpcode.RDMA_WRITE_WITH_IMM.completionOpcode()).isEqualTo(CompletionOpcode.RDMA_WRITE);
        assertThat(SendOpcode.ATOMIC_CMP_AND_SWP.completionOpcode()).isEqualTo(CompletionOpcode.COMP_SWAP);
        assertThat(CompletionOpcode.of(129)).isEqualTo(CompletionOpcode.RECV_RDMA_WITH_IMM);
        assertThat(CompletionOpcode.RECV.isSendQueue()).isFalse();
        assertThat(CompletionOpcode.FETCH_ADD.isSendQueue()).isTrue();
    }
}

package io.rdma.verbs.api;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Reusable send and receive work requests as {@code struct ibv_send_wr} / {@code ibv_recv_wr}
 * have them: zeroed when new (no flags), entries and chains kept in the order they were added,
 * bounded SGE lists, a full reset, unsigned lengths.
 */
class WorkRequestTest {

    @Test
    void sendRequestHoldsAtMostItsSgeCapacity() {
        SendWorkRequest wr = new SendWorkRequest(2).addSge(0x1000, 8, 1).addSge(0x2000, 16, 1);

        assertThat(wr.sgeCount()).isEqualTo(2);
        assertThat(wr.sgeAddress(0)).as("entries in the order they were added").isEqualTo(0x1000);
        assertThat(wr.sgeAddress(1)).isEqualTo(0x2000);
        assertThat(wr.totalLength()).isEqualTo(24);
        assertThatIllegalStateException().isThrownBy(() -> wr.addSge(0x3000, 8, 1))
                .withMessageContaining("at most 2").withMessageContaining("new SendWorkRequest(maxSge)");
        assertThat(wr.reset().addSge(0x4000, 4, 2).sgeCount()).as("reset empties the list").isEqualTo(1);
    }

    @Test
    void aNewSendRequestCarriesNoFlagsUntilSet() {
        SendWorkRequest wr = new SendWorkRequest();
        Set<SendFlag> view = wr.flags();

        assertThat(view).as("a zeroed ibv_send_wr: unsignaled").isEmpty();
        assertThat(wr.isSignaled()).isFalse();
        wr.flags(EnumSet.of(SendFlag.SIGNALED, SendFlag.SOLICITED));
        assertThat(view).as("the view follows the request")
                .containsExactlyInAnyOrder(SendFlag.SIGNALED, SendFlag.SOLICITED);
        assertThat(wr.flagMask()).as("IBV_SEND_SIGNALED | IBV_SEND_SOLICITED").isEqualTo(2 | 4);
        assertThatThrownBy(() -> view.add(SendFlag.FENCE)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(wr.flags(Set.of(SendFlag.FENCE)).flags()).as("flags(...) replaces them")
                .containsExactly(SendFlag.FENCE);
    }

    @Test
    void chainsKeepTheOrderTheyWereBuiltIn() {
        SendWorkRequest first = new SendWorkRequest().wrId(1);
        SendWorkRequest second = new SendWorkRequest().wrId(2);
        SendWorkRequest third = new SendWorkRequest().wrId(3);

        first.append(second).append(third);

        assertThat(first.next()).isSameAs(second);
        assertThat(second.next()).isSameAs(third);
        assertThat(third.next()).isNull();
        assertThatIllegalArgumentException().isThrownBy(() -> third.append(first)).withMessageContaining("loop");
        assertThatIllegalArgumentException().isThrownBy(() -> first.append(second)).withMessageContaining("loop");

        ReceiveWorkRequest receive = new ReceiveWorkRequest().wrId(7);
        ReceiveWorkRequest after = new ReceiveWorkRequest().wrId(8);
        receive.append(after).append(new ReceiveWorkRequest().wrId(9));
        assertThat(receive.next().next().wrId()).isEqualTo(9);
        assertThatIllegalArgumentException().isThrownBy(() -> after.append(receive));
        assertThat(receive.reset().next()).isNull();
    }

    @Test
    void resetRestoresTheDefaultsOfANewRequest() {
        SendWorkRequest wr = new SendWorkRequest().wrId(5).opcode(SendOpcode.RDMA_WRITE)
                .flags(EnumSet.of(SendFlag.FENCE, SendFlag.SIGNALED)).immediateData(9).remote(0x10, 3).atomic(1, 2)
                .addSge(0x1000, 8, 1).append(new SendWorkRequest());

        wr.reset();

        assertThat(wr.wrId()).isZero();
        assertThat(wr.opcode()).isEqualTo(SendOpcode.SEND);
        assertThat(wr.flags()).isEmpty();
        assertThat(wr.flagMask()).isZero();
        assertThat(wr.sgeCount()).isZero();
        assertThat(wr.remoteAddress()).isZero();
        assertThat(wr.compareAdd()).isZero();
        assertThat(wr.next()).isNull();
    }

    @Test
    void inlineDataNeedsNoLkeyAndLeavesTheFlagsAlone() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(12);
            SendWorkRequest wr = new SendWorkRequest().addInline(data);

            assertThat(wr.flags()).as("addInline never sets INLINE behind the caller's back").isEmpty();
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
        ReceiveWorkRequest wr = new ReceiveWorkRequest().addSge(0x1000, 64, 3);

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

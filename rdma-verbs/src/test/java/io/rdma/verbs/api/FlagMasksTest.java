package io.rdma.verbs.api;

import org.junit.jupiter.api.Test;

import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Enum sets to and from the bit masks libibverbs takes, with libibverbs' bit values. */
class FlagMasksTest {

    @Test
    void accessFlagsUseTheIbvAccessBits() {
        int mask = AccessFlag.mask(EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ,
                AccessFlag.RELAXED_ORDERING));

        assertThat(mask).isEqualTo(1 | 4 | 1 << 20);
        assertThat(AccessFlag.isSet(mask, AccessFlag.REMOTE_READ)).isTrue();
        assertThat(AccessFlag.isSet(mask, AccessFlag.REMOTE_WRITE)).isFalse();
    }

    @Test
    void completionCounterOpsRoundTripThroughTheirMask() {
        EnumSet<CompletionCounterOp> ops = EnumSet.of(CompletionCounterOp.RECV, CompletionCounterOp.REMOTE_RDMA_WRITE);

        int mask = CompletionCounterOp.mask(ops);

        assertThat(mask).isEqualTo(2 | 32);
        assertThat(CompletionCounterOp.fromMask(mask)).isEqualTo(ops);
        assertThat(CompletionCounterOp.fromMask(0)).isEmpty();
        assertThat(CompletionCounterOp.REMOTE_RDMA_READ.isRemote()).isTrue();
        assertThat(CompletionCounterOp.RDMA_READ.isRemote()).isFalse();
    }

    @Test
    void mtuEnumValuesAndBytes() {
        assertThat(Mtu.of(3)).isEqualTo(Mtu.MTU_1024);
        assertThat(Mtu.ofBytes(4096).value()).isEqualTo(5);
        assertThat(Mtu.MTU_4096.min(Mtu.MTU_1024)).isEqualTo(Mtu.MTU_1024);
        assertThatIllegalArgumentException().isThrownBy(() -> Mtu.ofBytes(1500))
                .withMessageContaining("1500");
    }
}

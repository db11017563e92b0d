package io.rdma.verbs.api;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class CompletionBatchTest {

    @Test
    void slotsAreReusedAndOnlyThoseOfTheLastPollAreReadable() {
        CompletionBatch batch = new CompletionBatch(4);
        batch.sink().put(0, 11, CompletionStatus.SUCCESS, CompletionOpcode.RECV, 0, 64, 0x77, 5, 6,
                WorkCompletion.FLAG_WITH_IMM | WorkCompletion.FLAG_GRH, 0, 1, 0, -1);
        batch.size(1);
        WorkCompletion first = batch.get(0);

        assertThat(first.wrId()).isEqualTo(11);
        assertThat(first.hasImmediateData()).isTrue();
        assertThat(first.immediateData()).isEqualTo(0x77);
        assertThat(first.hasGrh()).isTrue();
        assertThat(first.opcode().isSendQueue()).isFalse();
        assertThatExceptionOfType(IndexOutOfBoundsException.class).isThrownBy(() -> batch.get(1))
                .withMessageContaining("holding 1");

        batch.sink().put(0, 12, CompletionStatus.SUCCESS, CompletionOpcode.SEND, 0, 8, 0, 5, 0, 0, 0, 0, 0, -1);
        batch.size(1);
        assertThat(batch.get(0)).isSameAs(first);
        assertThat(first.wrId()).isEqualTo(12);
        assertThat(first.hasImmediateData()).isFalse();
    }

    @Test
    void theSinkSpansTheWholeBatch() {
        CompletionBatch batch = new CompletionBatch(3);
        assertThat(batch.sink().capacity()).isEqualTo(3);
        assertThat(batch.sink()).isSameAs(batch.sink());
    }

    @Test
    void batchHoldsAtLeastOneCompletion() {
        assertThatIllegalArgumentException().isThrownBy(() -> new CompletionBatch(0));
    }

    @Test
    void unknownStatusValuesMapToGeneralError() {
        assertThat(CompletionStatus.of(5)).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
        assertThat(CompletionStatus.of(99)).isEqualTo(CompletionStatus.GENERAL_ERR);
        assertThat(CompletionStatus.of(-1)).isEqualTo(CompletionStatus.GENERAL_ERR);
    }
}

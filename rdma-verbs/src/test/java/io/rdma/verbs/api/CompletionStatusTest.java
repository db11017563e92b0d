package io.rdma.verbs.api;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** The completion status codes as verbs manual §5.3 (ibv_poll_cq) tabulates them. */
class CompletionStatusTest {

    @ParameterizedTest
    @CsvSource({
            "IBV_WC_SUCCESS, 0", "IBV_WC_LOC_LEN_ERR, 1", "IBV_WC_LOC_QP_OP_ERR, 2", "IBV_WC_LOC_EEC_OP_ERR, 3",
            "IBV_WC_LOC_PROT_ERR, 4", "IBV_WC_WR_FLUSH_ERR, 5", "IBV_WC_MW_BIND_ERR, 6", "IBV_WC_BAD_RESP_ERR, 7",
            "IBV_WC_LOC_ACCESS_ERR, 8", "IBV_WC_REM_INV_REQ_ERR, 9", "IBV_WC_REM_ACCESS_ERR, 10",
            "IBV_WC_REM_OP_ERR, 11", "IBV_WC_RETRY_EXC_ERR, 12", "IBV_WC_RNR_RETRY_EXC_ERR, 13",
            "IBV_WC_LOC_RDD_VIOL_ERR, 14", "IBV_WC_REM_INV_RD_REQ_ERR, 15", "IBV_WC_REM_ABORT_ERR, 16",
            "IBV_WC_INV_EECN_ERR, 17", "IBV_WC_INV_EEC_STATE_ERR, 18", "IBV_WC_FATAL_ERR, 19",
            "IBV_WC_RESP_TIMEOUT_ERR, 20", "IBV_WC_GENERAL_ERR, 21"})
    void eachStatusHasTheManualsNumberBothWays(String manualName, int number) {
        CompletionStatus status = CompletionStatus.valueOf(manualName.substring("IBV_WC_".length()));

        assertThat(status.value()).isEqualTo(number);
        assertThat(CompletionStatus.of(number)).isEqualTo(status);
    }

    @ParameterizedTest
    @CsvSource({"-1", "22", "255"})
    void aNumberOutsideTheTableReadsAsAGeneralError(int number) {
        assertThat(CompletionStatus.of(number)).isEqualTo(CompletionStatus.GENERAL_ERR);
    }
}

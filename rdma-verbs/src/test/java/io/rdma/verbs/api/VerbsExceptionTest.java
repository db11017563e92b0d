package io.rdma.verbs.api;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class VerbsExceptionTest {

    @Test
    void messageNamesVerbErrnoNameAndNumberDetailAndAdvice() {
        VerbsException failure = new VerbsException("ibv_create_qp", Errno.EINVAL, "max_send_wr 99999 > 16384",
                "lower rdma.queue-pairs.orders.max-send-wr");

        assertThat(failure.getMessage()).isEqualTo("ibv_create_qp failed with EINVAL (22): max_send_wr 99999 > 16384."
                + " lower rdma.queue-pairs.orders.max-send-wr");
        assertThat(failure.verb()).isEqualTo("ibv_create_qp");
        assertThat(failure.errno()).isEqualTo(Errno.EINVAL);
        assertThat(failure.errnoCode()).isEqualTo(22);
        assertThat(failure.advice()).isEqualTo("lower rdma.queue-pairs.orders.max-send-wr");
        assertThat(failure.hasBadWorkRequest()).isFalse();
    }

    @Test
    void messageWithoutAdviceEndsWithTheDetail() {
        VerbsException failure = VerbsException.of("ibv_reg_mr", Errno.ENOMEM, "1 GiB");

        assertThat(failure.getMessage()).isEqualTo("ibv_reg_mr failed with ENOMEM (12): 1 GiB");
        assertThat(failure.advice()).isNull();
    }

    @Test
    void rawErrnoIsMappedFromEitherSignAndKeptWhenUnknown() {
        assertThat(new VerbsException("ibv_poll_cq", -75, null, null).errno()).isEqualTo(Errno.EOVERFLOW);
        VerbsException unknown = new VerbsException("ibv_modify_qp", 4242, "odd", null);

        assertThat(unknown.errno()).isEqualTo(Errno.UNKNOWN);
        assertThat(unknown.errnoCode()).isEqualTo(4242);
        assertThat(unknown.getMessage()).isEqualTo("ibv_modify_qp failed with errno (4242): odd");
    }

    @Test
    void badWorkRequestKeepsTheMessageAndNamesTheRequest() {
        VerbsException failure = new VerbsException("ibv_post_send", Errno.ENOMEM, "2 free slots for a chain of 3",
                "signal every Nth WR");

        VerbsException named = failure.withBadWorkRequest(77);

        assertThat(named.hasBadWorkRequest()).isTrue();
        assertThat(named.badWorkRequestId()).isEqualTo(77);
        assertThat(named.getMessage()).isEqualTo(failure.getMessage());
        assertThat(named.errno()).isEqualTo(Errno.ENOMEM);
        assertThat(named.advice()).isEqualTo("signal every Nth WR");
    }

    @Test
    void errnoNamesAndNumbersMatchLinux() {
        assertThat(Errno.of(22)).isEqualTo(Errno.EINVAL);
        assertThat(Errno.of(-16)).isEqualTo(Errno.EBUSY);
        assertThat(Errno.of(9999)).isEqualTo(Errno.UNKNOWN);
        assertThat(Errno.ENOTSUP).isSameAs(Errno.EOPNOTSUPP);
        assertThat(Errno.EOPNOTSUPP.code()).isEqualTo(95);
    }
}

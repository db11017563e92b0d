package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.Errno;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The advice follows the verb where one errno means different things. */
class NativeErrorsTest {

    /** Seen on Soft-RoCE: rdma_resolve_route to 127.0.0.1 fails with ENODEV while rxe0 is fine. */
    /** libsiw returns its failed doorbell write()'s -1, which names no errno; its other failures are negated errnos. */
    @Test
    void aPostThatReturnsMinusOneFailedWithoutAnErrnoAndIsNotEperm() {
        assertThat(NativeErrors.ofPost(-1)).isEqualTo(Errno.EIO.code());
        assertThat(Errno.of(NativeErrors.ofPost(-Errno.ENOMEM.code()))).isEqualTo(Errno.ENOMEM);
        assertThat(NativeErrors.ofPost(Errno.EINVAL.code())).isEqualTo(Errno.EINVAL.code());
        assertThat(NativeErrors.ofPost(0)).isZero();
    }

    @Test
    void enodevFromAddressResolutionPointsAtTheAddressNotAtAVanishedDevice() {
        assertThat(NativeErrors.adviceFor("rdma_resolve_route", Errno.ENODEV))
                .contains("127.0.0.1").doesNotContain("went away");
        assertThat(NativeErrors.adviceFor("rdma_resolve_addr", Errno.ENODEV)).contains("127.0.0.1");
        assertThat(NativeErrors.adviceFor("ibv_query_port", Errno.ENODEV)).contains("went away");
    }
}

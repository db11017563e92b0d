package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.VerbsException;
import org.junit.jupiter.api.Test;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** errno is captured with the call and becomes a {@link VerbsException} naming the verb. */
class CheckedCallTest {

    private static final CheckedCall CLOSE = CheckedCall.bind("close",
            Linker.nativeLinker().defaultLookup().findOrThrow("close"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final CheckedCall MALLOC = CheckedCall.bind("malloc",
            Linker.nativeLinker().defaultLookup().findOrThrow("malloc"),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));

    @Test
    void aFailedCallReportsTheErrnoItSet() {
        // close(-1) returns -1 with errno EBADF (9), which Errno does not name
        assertThatThrownBy(() -> CLOSE.status("fd -1", -1)).isInstanceOfSatisfying(VerbsException.class, e -> {
            assertThat(e.verb()).isEqualTo("close");
            assertThat(e.errnoCode()).isEqualTo(9);
            assertThat(e.errno()).isEqualTo(Errno.UNKNOWN);
            assertThat(e.getMessage()).contains("fd -1");
        });
        assertThat(CLOSE.errnoOf(-1)).isEqualTo(9);
    }

    @Test
    void aNullPointerResultIsAFailureWithItsErrno() {
        // no allocator hands out an exabyte: NULL with ENOMEM
        assertThatThrownBy(() -> MALLOC.pointer("an exabyte", 1L << 60))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.verb()).isEqualTo("malloc");
                    assertThat(e.errno()).isEqualTo(Errno.ENOMEM);
                    assertThat(e.advice()).contains("RLIMIT_MEMLOCK");
                });
    }

    @Test
    void verbsReturningTheErrnoDirectlyAreMappedByName() {
        VerbsException failure = NativeErrors.failure("ibv_reg_mr", 12, "4096 bytes");
        assertThat(failure.errno()).isEqualTo(Errno.ENOMEM);
        assertThat(failure.getMessage()).startsWith("ibv_reg_mr failed with ENOMEM (12): 4096 bytes")
                .contains("ulimit -l");
        assertThat(NativeErrors.failure("ibv_create_counters", 95, null).errno()).isEqualTo(Errno.EOPNOTSUPP);
        assertThat(NativeErrors.failure("ibv_get_device_list", 38, null).advice()).contains("rdma_rxe");
    }
}

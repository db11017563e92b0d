package io.rdma.verbs.api;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** RLIMIT_MEMLOCK is an unsigned rlim_t: RLIM_INFINITY (2^64-1) is unlimited, not -1; CAP_IPC_LOCK lifts any limit. */
class LockedMemoryAllowanceTest {

    private static final long EIGHT_MIB = 8L << 20;

    @Test
    void rlimInfinityIsUnlimited() {
        LockedMemoryAllowance allowance = LockedMemoryAllowance.ofRlimit(-1L, false);
        assertThat(allowance.limit()).isEmpty();
        assertThat(allowance.permits(Long.MAX_VALUE)).isTrue();
        assertThat(allowance.describeLimit()).isEqualTo("unlimited");
    }

    @Test
    void aLimitPermitsUpToItself() {
        LockedMemoryAllowance allowance = LockedMemoryAllowance.ofRlimit(EIGHT_MIB, false);
        assertThat(allowance.permits(EIGHT_MIB)).isTrue();
        assertThat(allowance.permits(EIGHT_MIB + 1)).isFalse();
        assertThat(allowance.describeLimit()).isEqualTo("8388608 bytes");
    }

    @Test
    void aLimitAbove2To63IsComparedUnsigned() {
        LockedMemoryAllowance allowance = LockedMemoryAllowance.ofRlimit(-2L, false);
        assertThat(allowance.permits(Long.MAX_VALUE)).isTrue();
        assertThat(allowance.describeLimit()).isEqualTo("18446744073709551614 bytes");
    }

    @Test
    void ipcLockLiftsTheLimit() {
        assertThat(LockedMemoryAllowance.ofRlimit(0, true).permits(EIGHT_MIB)).isTrue();
    }
}

package io.rdma.verbs.api;

import java.math.BigInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** rxe's and mlx5's {@code max_mr_size} is 2^64 - 1: each reading must show it as such, never as -1. */
class Unsigned64Test {

    private static final long TWO_TO_THE_63_PLUS_5 = Long.MIN_VALUE + 5;

    @Test
    void theLargestValueIsNeverMinusOne() {
        assertThat(Unsigned64.toString(Unsigned64.MAX)).isEqualTo("18446744073709551615");
        assertThat(Unsigned64.toBigInteger(Unsigned64.MAX)).isEqualTo(BigInteger.TWO.pow(64).subtract(BigInteger.ONE));
        assertThat(Unsigned64.toDouble(Unsigned64.MAX)).isEqualTo(0x1p64);
    }

    @Test
    void valuesAboveTwoToThe63StayPositive() {
        assertThat(Unsigned64.toString(TWO_TO_THE_63_PLUS_5)).isEqualTo("9223372036854775813");
        assertThat(Unsigned64.toDouble(TWO_TO_THE_63_PLUS_5)).isEqualTo(0x1p63);
        assertThat(Unsigned64.toBigInteger(TWO_TO_THE_63_PLUS_5)).isEqualTo(BigInteger.TWO.pow(63).add(BigInteger.valueOf(5)));
    }

    @Test
    void valuesBelowTwoToThe63AreUnchanged() {
        assertThat(Unsigned64.toString(42)).isEqualTo("42");
        assertThat(Unsigned64.toDouble(Long.MAX_VALUE)).isEqualTo((double) Long.MAX_VALUE);
        assertThat(Unsigned64.toBigInteger(0)).isEqualTo(BigInteger.ZERO);
    }

    @Test
    void deviceAttributesCompareTheRegionLimitUnsigned() {
        DeviceAttributes rxe = attributesWithMaxMrSize(Unsigned64.MAX);
        assertThat(rxe.allowsRegionOf(524_288)).isTrue();
        assertThat(rxe.allowsRegionOf(Long.MAX_VALUE)).isTrue();
        DeviceAttributes small = attributesWithMaxMrSize(1 << 20);
        assertThat(small.allowsRegionOf(1 << 20)).isTrue();
        assertThat(small.allowsRegionOf((1 << 20) + 1)).isFalse();
    }

    private static DeviceAttributes attributesWithMaxMrSize(long maxMrSize) {
        return new DeviceAttributes("fw", "", "", new Guid(1), new Guid(1), maxMrSize, 0xffff_f000L, 0, 0, 0, 1, 1, 1, 1, 1,
                1, 1, 1, 1, AtomicCapability.NONE, 1, 1, 1, 1, 0, 1, false, 0, Unsigned64.MAX,
                java.util.Set.of(), false);
    }
}

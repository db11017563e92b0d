package io.rdma.verbs.api;

import java.math.BigInteger;

/**
 * Reading a {@code long} that holds an unsigned 64-bit quantity of libibverbs or sysfs
 * ({@code max_mr_size}, {@code page_size_cap}, a completion counter's value or maximum, a flow or
 * port counter). Java has no unsigned long, so such a value above 2^63 - 1 is a negative
 * {@code long}: compare it with {@link Long#compareUnsigned} and turn it into text, a double or
 * a JSON number only through here. Devices such as rxe and mlx5 report {@code max_mr_size} as
 * 2^64 - 1 ({@link #MAX}), which a signed reading takes for -1.
 *
 * <p>Stateless, so thread-safe.
 */
public final class Unsigned64 {

    /** 2^64 - 1, the largest unsigned 64-bit value: what devices report for "no limit". */
    public static final long MAX = -1L;

    private static final double TWO_TO_THE_64 = 0x1p64;

    private Unsigned64() {
    }

    /** The decimal form: {@code 18446744073709551615} for {@link #MAX}, never {@code -1}. */
    public static String toString(long value) {
        return Long.toUnsignedString(value);
    }

    /** The nearest double, positive for every value (a meter must never turn negative above 2^63). */
    public static double toDouble(long value) {
        double signed = (double) value;
        return value < 0 ? signed + TWO_TO_THE_64 : signed;
    }

    /** The exact value, for JSON: serialisers write a {@link BigInteger} as a number of any size. */
    public static BigInteger toBigInteger(long value) {
        return new BigInteger(Long.toUnsignedString(value));
    }
}

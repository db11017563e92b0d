package io.rdma.verbs.provider.simulated;

/**
 * The IB encodings of the two transport timers. These are the InfiniBand specification's
 * {@code min_rnr_timer} values; the verbs manual's "selected values" table is wrong at 12, 14 and 20
 * (docs/simulated-fabric.md, "Transport timers").
 */
final class IbTimers {

    private static final long[] RNR_NANOS = {
        655_360_000, 10_000, 20_000, 30_000, 40_000, 60_000, 80_000, 120_000, 160_000, 240_000, 320_000, 480_000,
        640_000, 960_000, 1_280_000, 1_920_000, 2_560_000, 3_840_000, 5_120_000, 7_680_000, 10_240_000, 15_360_000,
        20_480_000, 30_720_000, 40_960_000, 61_440_000, 81_920_000, 122_880_000, 163_840_000, 245_760_000,
        327_680_000, 491_520_000,
    };

    /** An ACK timeout of 0 means "infinite"; the simulated requester then re-tries at this pace, forever. */
    static final long INFINITE_TIMEOUT_RETRY_NANOS = 10_000_000;

    /** rnr_retry 7 means retry forever. */
    static final int INFINITE_RNR_RETRY = 7;

    private IbTimers() {
    }

    /** The RNR NAK delay {@code min_rnr_timer} encodes. */
    static long rnrNanos(int minRnrTimer) {
        return RNR_NANOS[minRnrTimer & 31];
    }

    /** Local ACK timeout: 4.096 µs × 2^timeout (verbs manual §6.2.3). */
    static long ackTimeoutNanos(int timeout) {
        return timeout == 0 ? INFINITE_TIMEOUT_RETRY_NANOS : 4096L << timeout;
    }
}

package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.ReliabilitySettings;

/**
 * The IB encodings of the two transport timers: {@code min_rnr_timer} as the InfiniBand
 * specification gives it ({@link ReliabilitySettings#rnrDelay}; the verbs manual's "selected values"
 * table is wrong at 12, 14 and 20, docs/simulated-fabric.md, "Transport timers"), and the ACK timeout.
 */
final class IbTimers {

    /** An ACK timeout of 0 means "infinite"; the simulated requester then re-tries at this pace, forever. */
    static final long INFINITE_TIMEOUT_RETRY_NANOS = 10_000_000;

    private IbTimers() {
    }

    /** The RNR NAK delay {@code min_rnr_timer} encodes. */
    static long rnrNanos(int minRnrTimer) {
        return ReliabilitySettings.rnrDelay(minRnrTimer).toNanos();
    }

    /** Local ACK timeout: 4.096 µs × 2^timeout (verbs manual §6.2.3). */
    static long ackTimeoutNanos(int timeout) {
        return timeout == 0 ? INFINITE_TIMEOUT_RETRY_NANOS : 4096L << timeout;
    }
}

package io.rdma.verbs.api;

import java.time.Duration;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * The four RC attributes that decide how fast a dead or unreachable peer is noticed, for a QP the
 * connection manager connects ({@link ConnectionManager#connect}, {@link ConnectionListener#accept}):
 * each one left null keeps what {@code rdma_init_qp_attr} gives (the device's and the connection
 * manager's default; the RNR timer, which the kernel's connection manager sets to its longest, is
 * {@link #DEFAULT_RNR_TIMER} instead), each one set replaces it in the transition that carries it. The same four are
 * in {@link ConnectOptions} for a QP connected out of band.
 *
 * <ul>
 * <li>{@code ackTimeout}: the local ACK timeout, {@code timeout} of RTS (verbs manual §6.2.3):
 *     4.096 µs × 2^ackTimeout per try, 0 = infinite (never times out). 14 ≈ 67 ms, 17 ≈ 537 ms, 20 ≈ 4.3 s.</li>
 * <li>{@code retryCount}: {@code retry_cnt} of RTS, 0–7: how often a packet is sent again after an ACK
 *     timeout before the work request fails with {@code IBV_WC_RETRY_EXC_ERR}; a peer that is gone is
 *     noticed after (retryCount + 1) ACK timeouts ({@link #retryExhaustion}).</li>
 * <li>{@code rnrRetry}: {@code rnr_retry} of RTS, 0–7, 7 = infinite: how often a send that found no
 *     receive posted at the peer (RNR NAK) is retried before {@code IBV_WC_RNR_RETRY_EXC_ERR}.</li>
 * <li>{@code rnrTimer}: {@code min_rnr_timer} of RTR, the IB encoding 0–31 ({@link #rnrDelay}): how long this QP
 *     asks a sender to wait after it answered RNR NAK.</li>
 * </ul>
 *
 * <p>Immutable, so thread-safe.
 *
 * @param ackTimeout the ACK timeout exponent (0–31), or null for the default
 * @param retryCount transport retries (0–7), or null for the default
 * @param rnrRetry RNR retries (0–7, 7 = infinite), or null for the default
 * @param rnrTimer the RNR NAK timer's IB encoding (0–31), or null for the default
 */
public record ReliabilitySettings(@Nullable Integer ackTimeout, @Nullable Integer retryCount,
                                  @Nullable Integer rnrRetry, @Nullable Integer rnrTimer) {

    /** Largest {@code timeout} and {@code min_rnr_timer}: both are 5-bit fields. */
    public static final int MAX_TIMER_ENCODING = 31;
    /** Largest {@code retry_cnt} and {@code rnr_retry}: both are 3-bit fields. */
    public static final int MAX_RETRIES = 7;
    /** {@code rnr_retry} 7 retries for ever. */
    public static final int INFINITE_RNR_RETRY = 7;
    /**
     * The RNR timer a connection gets where none is set: 12, 0.64 ms (the verbs manual's example,
     * and {@link ConnectOptions}' default). It replaces what the kernel's IB connection manager
     * gives an RC QP at RTR, 0, which encodes 655.36 ms, the longest: every RNR NAK would stall
     * its sender for two thirds of a second.
     */
    public static final int DEFAULT_RNR_TIMER = 12;

    private static final ReliabilitySettings DEVICE_DEFAULTS = new ReliabilitySettings(null, null, null, null);

    /**
     * The RNR NAK timer field's values (the IB spec's table; verbs manual §6.2.2 prints a "selected values"
     * table that is wrong at 12, 14 and 20, see docs/simulated-fabric.md), in nanoseconds, by encoding.
     */
    private static final long[] RNR_DELAY_NANOS = {
        655_360_000, 10_000, 20_000, 30_000, 40_000, 60_000, 80_000, 120_000, 160_000, 240_000, 320_000, 480_000,
        640_000, 960_000, 1_280_000, 1_920_000, 2_560_000, 3_840_000, 5_120_000, 7_680_000, 10_240_000, 15_360_000,
        20_480_000, 30_720_000, 40_960_000, 61_440_000, 81_920_000, 122_880_000, 163_840_000, 245_760_000,
        327_680_000, 491_520_000,
    };

    /**
     * @throws IllegalArgumentException when a value is outside the range its {@code ibv_qp_attr} field holds
     */
    public ReliabilitySettings {
        inRange("ackTimeout", ackTimeout, MAX_TIMER_ENCODING);
        inRange("retryCount", retryCount, MAX_RETRIES);
        inRange("rnrRetry", rnrRetry, MAX_RETRIES);
        inRange("rnrTimer", rnrTimer, MAX_TIMER_ENCODING);
    }

    /** None set: every attribute as {@code rdma_init_qp_attr} gives it. */
    public static ReliabilitySettings deviceDefaults() {
        return DEVICE_DEFAULTS;
    }

    /** The four as a QP has them ({@link QueuePair#query}); null where the query left one out. */
    public static ReliabilitySettings of(QueuePairAttributes attributes) {
        return new ReliabilitySettings(attributes.timeout(), attributes.retryCount(), attributes.rnrRetry(),
                attributes.minRnrTimer());
    }

    /** Whether none is set. */
    public boolean isDeviceDefault() {
        return equals(DEVICE_DEFAULTS);
    }

    /** Each attribute set here, else the one of {@code fallback}. */
    public ReliabilitySettings or(ReliabilitySettings fallback) {
        return new ReliabilitySettings(ackTimeout != null ? ackTimeout : fallback.ackTimeout,
                retryCount != null ? retryCount : fallback.retryCount,
                rnrRetry != null ? rnrRetry : fallback.rnrRetry,
                rnrTimer != null ? rnrTimer : fallback.rnrTimer);
    }

    /** The local ACK timeout {@code timeout} encodes, 4.096 µs × 2^timeout; empty for 0 (infinite). */
    public static Optional<Duration> ackTimeoutPerTry(int timeout) {
        inRange("ackTimeout", timeout, MAX_TIMER_ENCODING);
        return timeout == 0 ? Optional.empty() : Optional.of(Duration.ofNanos(4096L << timeout));
    }

    /**
     * How long a work request towards a peer that no longer answers takes to fail with
     * {@code IBV_WC_RETRY_EXC_ERR}: the first try and {@code retryCount} retries, each waiting one ACK
     * timeout, (retryCount + 1) × 4.096 µs × 2^timeout; empty for timeout 0 (it never fails).
     */
    public static Optional<Duration> retryExhaustion(int timeout, int retryCount) {
        inRange("retryCount", retryCount, MAX_RETRIES);
        return ackTimeoutPerTry(timeout).map(perTry -> perTry.multipliedBy(retryCount + 1L));
    }

    /** The RNR NAK delay {@code min_rnr_timer} encodes (0 = 655.36 ms, 1 = 0.01 ms, ..., 31 = 491.52 ms). */
    public static Duration rnrDelay(int rnrTimer) {
        inRange("rnrTimer", rnrTimer, MAX_TIMER_ENCODING);
        return Duration.ofNanos(RNR_DELAY_NANOS[rnrTimer]);
    }

    private static void inRange(String attribute, @Nullable Integer value, int max) {
        if (value != null && (value < 0 || value > max)) {
            throw new IllegalArgumentException("reliability setting " + attribute + " is " + value
                    + "; ibv_modify_qp takes 0 to " + max);
        }
    }
}

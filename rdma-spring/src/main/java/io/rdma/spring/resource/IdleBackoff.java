package io.rdma.spring.resource;

import java.time.Duration;

/**
 * How a completion poller that {@link CompletionIdle#BACKOFF backs off} waits after a poll found
 * its queue empty: the first {@code spins} empty polls are followed by a spin-wait hint, the next
 * {@code yields} by {@link Thread#yield()}, and every one after those by a park, of
 * {@code minPark} first, doubling up to {@code maxPark}. A completion starts it again from the
 * spins. As Agrona's {@code BackoffIdleStrategy}.
 */
public record IdleBackoff(int spins, int yields, Duration minPark, Duration maxPark) {

    /** Spins for tens of microseconds, then yields, then parks from 10 µs up to 1 ms. */
    public static final IdleBackoff DEFAULT = new IdleBackoff(2000, 200, Duration.ofNanos(10_000),
            Duration.ofMillis(1));

    public IdleBackoff {
        if (spins < 0 || yields < 0 || minPark.isNegative() || maxPark.compareTo(minPark) < 0) {
            throw new IllegalArgumentException("an idle back-off needs spins and yields of 0 or more and"
                    + " 0 <= minPark <= maxPark: " + spins + ", " + yields + ", " + minPark + ", " + maxPark);
        }
    }
}

package io.rdma.verbs.bench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

class LatencyFiguresTest {

    /** Posts whose gaps are the given round trips, in µs. */
    private static long[] postsWithRoundTrips(long... roundTripsMicros) {
        long[] posted = new long[roundTripsMicros.length + 1];
        for (int i = 0; i < roundTripsMicros.length; i++) {
            posted[i + 1] = posted[i] + roundTripsMicros[i] * 1000;
        }
        return posted;
    }

    @Test
    void halvesRoundTripsDropsTheTwoLargestAndTakesPerftestsMedian() {
        // round trips 2..20 µs plus two outliers: one-way 1..10 µs, outliers dropped
        LatencyFigures figures = LatencyFigures.fromPostTimes(
                postsWithRoundTrips(20, 2, 4, 1000, 6, 8, 10, 12, 14, 16, 18, 5000));

        assertThat(figures.iterations()).isEqualTo(13);
        assertThat(figures.min()).isEqualTo(1.0);
        // perftest reports delta[measure_cnt] as the maximum: the smaller of the two dropped gaps
        assertThat(figures.max()).isEqualTo(500.0);
        // ten measured gaps, (10 - 1) % 2 != 0: the mean of the 5th and 6th
        assertThat(figures.typical()).isEqualTo(5.5);
        assertThat(figures.average()).isEqualTo(5.5);
        assertThat(figures.stdev()).isCloseTo(Math.sqrt(8.25), within(1e-9));
        assertThat(figures.keyValues("java_send_lat")).contains("java_send_lat_us_typical=5.50",
                "java_send_lat_iters=13");
    }

    @Test
    void refusesTooFewIterations() {
        assertThatIllegalArgumentException().isThrownBy(() -> LatencyFigures.fromPostTimes(postsWithRoundTrips(1, 2)));
    }
}

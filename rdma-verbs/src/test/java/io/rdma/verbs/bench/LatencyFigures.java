package io.rdma.verbs.bench;

import java.util.Arrays;
import java.util.Locale;

/**
 * ib_send_lat's report, computed as perftest's {@code print_report_lat} computes it: the gaps
 * between successive posts of the client are round trips, halved; sorted, the two largest
 * dropped ({@code LAT_MEASURE_TAIL}); "typical" is their median. All figures in µs.
 */
record LatencyFigures(int iterations, double min, double max, double typical, double average, double stdev,
                      double p99, double p999) {

    private static final int MEASURE_TAIL = 2;
    private static final int ROUND_TRIP_FACTOR = 2;

    /** From the client's post times ({@link System#nanoTime()}), one per iteration. */
    static LatencyFigures fromPostTimes(long[] postedNanos) {
        int gaps = postedNanos.length - 1;
        if (gaps <= MEASURE_TAIL + 1) {
            throw new IllegalArgumentException("too few iterations for a latency report: " + postedNanos.length);
        }
        double[] halfRoundTrips = new double[gaps];
        for (int i = 0; i < gaps; i++) {
            halfRoundTrips[i] = (postedNanos[i + 1] - postedNanos[i]) / 1000.0 / ROUND_TRIP_FACTOR;
        }
        Arrays.sort(halfRoundTrips);
        int measured = gaps - MEASURE_TAIL;
        double median = (measured - 1) % 2 != 0
                ? (halfRoundTrips[measured / 2] + halfRoundTrips[measured / 2 - 1]) / 2
                : halfRoundTrips[measured / 2];
        double sum = 0;
        for (int i = 0; i < measured; i++) {
            sum += halfRoundTrips[i];
        }
        double average = sum / measured;
        double squares = 0;
        for (int i = 0; i < measured; i++) {
            squares += (average - halfRoundTrips[i]) * (average - halfRoundTrips[i]);
        }
        return new LatencyFigures(postedNanos.length, halfRoundTrips[0], halfRoundTrips[measured], median, average,
                Math.sqrt(squares / measured), halfRoundTrips[(int) Math.ceil(measured * 0.99)],
                halfRoundTrips[(int) Math.ceil(measured * 0.999)]);
    }

    /** The {@code KEY=VALUE} lines, under the names perftest-baseline.sh gives ib_send_lat's figures. */
    String keyValues(String prefix) {
        return String.format(Locale.ROOT, """
                %1$s_iters=%2$d
                %1$s_us_min=%3$.2f
                %1$s_us_max=%4$.2f
                %1$s_us_typical=%5$.2f
                %1$s_us_avg=%6$.2f
                %1$s_us_stdev=%7$.2f
                %1$s_us_p99=%8$.2f
                %1$s_us_p999=%9$.2f""", prefix, iterations, min, max, typical, average, stdev, p99, p999);
    }
}

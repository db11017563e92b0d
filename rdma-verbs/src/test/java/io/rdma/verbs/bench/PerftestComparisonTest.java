package io.rdma.verbs.bench;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Which ratios the comparison claims, on perftest figures measured in a Soft-RoCE guest. */
class PerftestComparisonTest {

    @Test
    void aTickBoundBusyPollingRatioIsLabelledAndClaimsNoTarget() {
        // Measured under single-threaded TCG: busy 3997 us (the 4 ms tick), events 195 us.
        Map<String, String> ratios = PerftestComparison.ratios(
                Map.of("java_send_lat_us_typical", "3996.22", "java_send_lat_events_us_typical", "224.70"),
                Map.of("ib_send_lat_us_typical", "3997.28", "ib_send_lat_events_us_typical", "194.93"));

        assertThat(ratios).containsEntry("ratio_send_lat_us_typical", "1.000")
                .containsEntry("target_send_lat_us_typical_met", "not measurable here")
                .containsEntry("target_send_lat_events_us_typical_met", "false");
        assertThat(ratios.get("note_send_lat_us_typical")).startsWith("tick-bound");
    }

    @Test
    void busyPollingFasterThanEventsIsJudgedAgainstTheTarget() {
        // As on hardware: busy 2.1 us, events 4.9 us.
        Map<String, String> ratios = PerftestComparison.ratios(
                Map.of("java_send_lat_us_typical", "2.30", "java_send_lat_events_us_typical", "5.00"),
                Map.of("ib_send_lat_us_typical", "2.10", "ib_send_lat_events_us_typical", "4.90"));

        assertThat(ratios).containsEntry("ratio_send_lat_us_typical", "1.095")
                .containsEntry("target_send_lat_us_typical_met", "false")
                .containsEntry("target_send_lat_events_us_typical_met", "true")
                .doesNotContainKey("note_send_lat_us_typical");
    }
}

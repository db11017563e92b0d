package io.rdma.verbs.api;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The encodings of verbs manual §6.2.2–§6.2.3 and the IB spec's RNR NAK timer table. */
class ReliabilitySettingsTest {

    @Test
    void theAckTimeoutIs4096NanosecondsTimesTwoToTheEncodingAndZeroIsInfinite() {
        assertThat(ReliabilitySettings.ackTimeoutPerTry(14)).contains(Duration.ofNanos(67_108_864));  // "~= 67ms"
        assertThat(ReliabilitySettings.ackTimeoutPerTry(8)).contains(Duration.ofNanos(1_048_576));    // "~1 ms"
        assertThat(ReliabilitySettings.ackTimeoutPerTry(20)).contains(Duration.ofNanos(4_294_967_296L)); // "~4.3 s"
        assertThat(ReliabilitySettings.ackTimeoutPerTry(0)).isEmpty();
    }

    @Test
    void aLostPeerIsNoticedAfterTheFirstTryAndEveryRetryTimedOut() {
        assertThat(ReliabilitySettings.retryExhaustion(14, 7)).contains(Duration.ofNanos(8 * 67_108_864L));
        assertThat(ReliabilitySettings.retryExhaustion(14, 0)).contains(Duration.ofNanos(67_108_864));
        assertThat(ReliabilitySettings.retryExhaustion(0, 7)).isEmpty();
    }

    @Test
    void theRnrTimerFollowsTheIbSpecificationsTable() {
        assertThat(ReliabilitySettings.rnrDelay(0)).isEqualTo(Duration.ofNanos(655_360_000));
        assertThat(ReliabilitySettings.rnrDelay(1)).isEqualTo(Duration.ofNanos(10_000));
        assertThat(ReliabilitySettings.rnrDelay(12)).isEqualTo(Duration.ofNanos(640_000));
        assertThat(ReliabilitySettings.rnrDelay(14)).isEqualTo(Duration.ofNanos(1_280_000));
        assertThat(ReliabilitySettings.rnrDelay(20)).isEqualTo(Duration.ofNanos(10_240_000));
        assertThat(ReliabilitySettings.rnrDelay(31)).isEqualTo(Duration.ofNanos(491_520_000));
    }

    @Test
    void valuesOutsideTheirFieldsAreRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> new ReliabilitySettings(32, null, null, null))
                .withMessageContaining("ackTimeout is 32").withMessageContaining("0 to 31");
        assertThatIllegalArgumentException().isThrownBy(() -> new ReliabilitySettings(null, 8, null, null))
                .withMessageContaining("retryCount is 8").withMessageContaining("0 to 7");
        assertThatIllegalArgumentException().isThrownBy(() -> new ReliabilitySettings(null, null, -1, null))
                .withMessageContaining("rnrRetry is -1");
        assertThatIllegalArgumentException().isThrownBy(() -> new ReliabilitySettings(null, null, null, 32))
                .withMessageContaining("rnrTimer is 32");
    }

    @Test
    void eachUnsetAttributeFallsBack() {
        ReliabilitySettings declared = new ReliabilitySettings(18, null, 3, null);
        assertThat(declared.or(new ReliabilitySettings(14, 7, 7, 12))).isEqualTo(new ReliabilitySettings(18, 7, 3, 12));
        assertThat(ReliabilitySettings.deviceDefaults().isDeviceDefault()).isTrue();
        assertThat(declared.isDeviceDefault()).isFalse();
    }
}

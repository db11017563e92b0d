package io.rdma.boot.autoconfigure.resource;

import io.rdma.boot.autoconfigure.RdmaProperties;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReliabilitySettings;

import org.jspecify.annotations.Nullable;

/**
 * Reads a queue pair's {@code reliability} properties, and a device's
 * {@code queue-pair-defaults.reliability}, checked against the IB encodings their
 * {@code ibv_qp_attr} fields hold (verbs manual §6.2.2–§6.2.3): each failure names the property
 * that set the value, which for a value the queue pair inherits is the device's default.
 */
final class ReliabilityReader {

    private ReliabilityReader() {
    }

    /** The device's defaults, each value in range. */
    static ReliabilitySettings defaults(RdmaProperties.Reliability defaults, String property) {
        return checked(defaults, property);
    }

    /**
     * The settings of queue pair (or prototype) {@code property} of {@code type}: its own, each unset one
     * from {@code deviceDefaults}. Only rc has them: a uc or ud queue pair that sets one fails, and
     * the device's defaults pass it by.
     */
    static ReliabilitySettings of(QueuePairType type, RdmaProperties.Reliability declared, String property,
                                  ReliabilitySettings deviceDefaults) {
        ReliabilitySettings own = checked(declared, property + ".reliability");
        if (type != QueuePairType.RC) {
            if (!own.isDeviceDefault()) {
                throw new InvalidRdmaConfigurationException(property + ".reliability", "the queue pair is " + type
                        + ", and ACK timeout, retry counts and RNR timer belong to reliable connections (rc): "
                        + type + " sends no acknowledgements, so nothing is retried", "Remove reliability from this"
                        + " queue pair, or make it type rc.");
            }
            return own;
        }
        return own.or(deviceDefaults);
    }

    private static ReliabilitySettings checked(RdmaProperties.Reliability declared, String property) {
        encoding(declared.getAckTimeout(), ReliabilitySettings.MAX_TIMER_ENCODING, property + ".ack-timeout",
                "an ACK timeout (ibv_qp_attr.timeout, 5 bits: 4.096 µs × 2^n, 0 = infinite)",
                "14 waits ≈ 67 ms per try");
        encoding(declared.getRetryCount(), ReliabilitySettings.MAX_RETRIES, property + ".retry-count",
                "a retry count (ibv_qp_attr.retry_cnt, 3 bits)", "7 sends each packet up to 8 times");
        encoding(declared.getRnrRetry(), ReliabilitySettings.MAX_RETRIES, property + ".rnr-retry",
                "an RNR retry count (ibv_qp_attr.rnr_retry, 3 bits, 7 = for ever)", "7 waits for ever for a receive");
        encoding(declared.getRnrTimer(), ReliabilitySettings.MAX_TIMER_ENCODING, property + ".rnr-timer",
                "an RNR NAK timer (ibv_qp_attr.min_rnr_timer, 5 bits, the IB encoding)", "12 asks for 0.64 ms");
        return new ReliabilitySettings(declared.getAckTimeout(), declared.getRetryCount(), declared.getRnrRetry(),
                declared.getRnrTimer());
    }

    private static void encoding(@Nullable Integer value, int max, String property, String what, String example) {
        if (value != null && (value < 0 || value > max)) {
            throw new InvalidRdmaConfigurationException(property, "the value " + value + " is out of range for "
                    + what + ", 0 to " + max, "Set a value from 0 to " + max + " (" + example + "), or remove it"
                    + " to keep the device's default.");
        }
    }
}

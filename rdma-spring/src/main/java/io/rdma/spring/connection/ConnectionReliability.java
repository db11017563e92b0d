package io.rdma.spring.connection;

import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairAttributes;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReliabilitySettings;
import io.rdma.verbs.api.ResourceClosedException;
import io.rdma.verbs.api.VerbsException;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The reliability settings a connected rc queue pair has ({@code ibv_query_qp}): what was declared,
 * and where nothing was, what the connection manager chose; with what they mean in time, for health
 * and the actuator.
 *
 * @param ackTimeout the ACK timeout's IB encoding (4.096 µs × 2^ackTimeout per try, 0 = infinite)
 * @param retryCount transport retries before RETRY_EXC_ERR
 * @param rnrRetry RNR retries before RNR_RETRY_EXC_ERR (7 = for ever)
 * @param rnrTimer the RNR NAK timer's IB encoding this queue pair asks senders to wait
 * @param ackTimeoutMillis one try's ACK timeout, null when infinite
 * @param failureDetectionMillis how long a work request towards a peer that is gone takes to fail,
 *                               (retryCount + 1) ACK timeouts; null when the ACK timeout is infinite
 * @param rnrDelayMillis the RNR NAK delay {@code rnrTimer} asks for
 */
public record ConnectionReliability(int ackTimeout, int retryCount, int rnrRetry, int rnrTimer,
                                    @Nullable Double ackTimeoutMillis, @Nullable Double failureDetectionMillis,
                                    double rnrDelayMillis) {

    /**
     * What {@code qp} has while it is connected (RTS, rc); null otherwise: a uc queue pair has no
     * such settings, and one that is down or closing (the status read races its teardown) has none
     * in force.
     */
    // ibv_query_qp of a queue pair in RTS reports all four settings (both providers set every attribute)
    @SuppressWarnings("NullAway")
    static @Nullable ConnectionReliability of(QueuePair qp) {
        if (qp.type() != QueuePairType.RC) {
            return null;
        }
        try {
            QueuePairAttributes attributes = qp.query();
            if (attributes.state() != QueuePairState.RTS) {
                return null;
            }
            ReliabilitySettings effective = ReliabilitySettings.of(attributes);
            return new ConnectionReliability(effective.ackTimeout(), effective.retryCount(), effective.rnrRetry(),
                    effective.rnrTimer(),
                    millis(ReliabilitySettings.ackTimeoutPerTry(effective.ackTimeout()).orElse(null)),
                    millis(ReliabilitySettings.retryExhaustion(effective.ackTimeout(), effective.retryCount())
                            .orElse(null)),
                    millis(ReliabilitySettings.rnrDelay(effective.rnrTimer())));
        } catch (ResourceClosedException | VerbsException closedMeanwhile) {
            return null;
        }
    }

    private static @Nullable Double millis(@Nullable Duration duration) {
        return duration == null ? null : duration.toNanos() / 1e6;
    }
}

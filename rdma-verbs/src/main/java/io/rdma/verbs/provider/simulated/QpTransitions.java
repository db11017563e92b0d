package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.QueuePairAttributes;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;

import java.util.ArrayList;
import java.util.List;

import static io.rdma.verbs.api.QueuePairState.ERR;
import static io.rdma.verbs.api.QueuePairState.INIT;
import static io.rdma.verbs.api.QueuePairState.RESET;
import static io.rdma.verbs.api.QueuePairState.RTR;
import static io.rdma.verbs.api.QueuePairState.RTS;
import static io.rdma.verbs.api.QueuePairState.SQD;

import org.jspecify.annotations.Nullable;

/**
 * The QP state machine of the IB specification (verbs manual §6.2): which transitions exist, and
 * which attributes each requires for each QP type. {@code ibv_modify_qp} fails with EINVAL,
 * naming the missing {@code IBV_QP_*} mask bits, on anything else.
 */
final class QpTransitions {

    private QpTransitions() {
    }

    static void check(QueuePairType type, QueuePairState from, QueuePairAttributes attributes) {
        QueuePairState to = attributes.state() == null ? from : attributes.state();
        if (!allowed(type, from, to)) {
            throw Failures.invalid("ibv_modify_qp", "a " + type + " QP cannot go from " + from + " to " + to,
                    "walk RESET -> INIT -> RTR -> RTS (any state may go to ERR or RESET)");
        }
        List<String> missing = new ArrayList<>();
        if (from == RESET && to == INIT) {
            require(missing, attributes.port(), "IBV_QP_PORT");
            if (type != QueuePairType.RAW_PACKET) {
                require(missing, attributes.pkeyIndex(), "IBV_QP_PKEY_INDEX");
            }
            if (type == QueuePairType.UD) {
                require(missing, attributes.qkey(), "IBV_QP_QKEY");
            } else if (type.isConnected()) {
                require(missing, attributes.accessFlags(), "IBV_QP_ACCESS_FLAGS");
            }
        } else if (from == INIT && to == RTR && type.isConnected()) {
            require(missing, attributes.addressVector(), "IBV_QP_AV");
            require(missing, attributes.pathMtu(), "IBV_QP_PATH_MTU");
            require(missing, attributes.destQpNumber(), "IBV_QP_DEST_QPN");
            require(missing, attributes.receivePsn(), "IBV_QP_RQ_PSN");
            if (type == QueuePairType.RC) {
                require(missing, attributes.maxDestRdAtomic(), "IBV_QP_MAX_DEST_RD_ATOMIC");
                require(missing, attributes.minRnrTimer(), "IBV_QP_MIN_RNR_TIMER");
            }
        } else if (from == RTR && to == RTS && type != QueuePairType.RAW_PACKET) {
            require(missing, attributes.sendPsn(), "IBV_QP_SQ_PSN");
            if (type == QueuePairType.RC) {
                require(missing, attributes.timeout(), "IBV_QP_TIMEOUT");
                require(missing, attributes.retryCount(), "IBV_QP_RETRY_CNT");
                require(missing, attributes.rnrRetry(), "IBV_QP_RNR_RETRY");
                require(missing, attributes.maxRdAtomic(), "IBV_QP_MAX_QP_RD_ATOMIC");
            }
        }
        if (!missing.isEmpty()) {
            throw Failures.invalid("ibv_modify_qp", from + " -> " + to + " of a " + type + " QP needs " + missing,
                    "set those attributes (ConnectOptions builds the verbs manual's set for each transition)");
        }
        checkRange("IBV_QP_RETRY_CNT", attributes.retryCount(), 7);
        checkRange("IBV_QP_RNR_RETRY", attributes.rnrRetry(), 7);
        checkRange("IBV_QP_TIMEOUT", attributes.timeout(), 31);
        checkRange("IBV_QP_MIN_RNR_TIMER", attributes.minRnrTimer(), 31);
    }

    private static boolean allowed(QueuePairType type, QueuePairState from, QueuePairState to) {
        if (to == RESET || to == ERR) {
            return true;
        }
        return switch (from) {
            case RESET -> to == INIT;
            case INIT -> to == INIT || to == RTR;
            case RTR -> to == RTS;
            case RTS -> to == RTS || to == SQD;
            case SQD -> to == RTS || to == SQD;
            case SQE -> to == RTS && type != QueuePairType.RC;
            case ERR -> false;
        };
    }

    private static void require(List<String> missing, @Nullable Object value, String mask) {
        if (value == null) {
            missing.add(mask);
        }
    }

    private static void checkRange(String mask, @Nullable Integer value, int max) {
        if (value != null && (value < 0 || value > max)) {
            throw Failures.invalid("ibv_modify_qp", mask + " " + value + " is outside 0.." + max);
        }
    }
}

package io.rdma.verbs.api;

import java.util.EnumSet;
import java.util.Set;

/**
 * The settings of the RESET → INIT → RTR → RTS walk (verbs manual §6.2.4) that
 * {@link QueuePair#connect} performs in one call. Defaults are the verbs manual's.
 *
 * @param timeout     local ACK timeout exponent: 4.096 µs × 2^timeout (0 = infinite)
 * @param retryCount  transport retries before {@code IBV_WC_RETRY_EXC_ERR} (max 7)
 * @param rnrRetry    RNR NAK retries before {@code IBV_WC_RNR_RETRY_EXC_ERR} (7 = infinite)
 * @param minRnrTimer the RNR NAK timer this QP asks senders to wait, as the IB encoding (0–31)
 * @param qkey        the Q_Key for UD QPs; ignored by RC and UC
 */
public record ConnectOptions(int port, int gidIndex, int pkeyIndex, Set<AccessFlag> accessFlags, Mtu pathMtu,
                             int sendPsn, int timeout, int retryCount, int rnrRetry, int minRnrTimer,
                             int maxRdAtomic, int maxDestRdAtomic, int qkey) {

    public ConnectOptions {
        accessFlags = Set.copyOf(accessFlags);
    }

    public static ConnectOptions defaults() {
        return new ConnectOptions(1, 0, 0,
                EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE,
                        AccessFlag.REMOTE_ATOMIC),
                Mtu.MTU_1024, 0, 14, 7, 7, 12, 16, 16, 0x11111111);
    }

    public ConnectOptions withPort(int value) {
        return new ConnectOptions(value, gidIndex, pkeyIndex, accessFlags, pathMtu, sendPsn, timeout, retryCount,
                rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic, qkey);
    }

    public ConnectOptions withGidIndex(int value) {
        return new ConnectOptions(port, value, pkeyIndex, accessFlags, pathMtu, sendPsn, timeout, retryCount,
                rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic, qkey);
    }

    public ConnectOptions withPathMtu(Mtu value) {
        return new ConnectOptions(port, gidIndex, pkeyIndex, accessFlags, value, sendPsn, timeout, retryCount,
                rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic, qkey);
    }

    public ConnectOptions withSendPsn(int value) {
        return new ConnectOptions(port, gidIndex, pkeyIndex, accessFlags, pathMtu, value, timeout, retryCount,
                rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic, qkey);
    }

    public ConnectOptions withRetries(int newTimeout, int newRetryCount, int newRnrRetry, int newMinRnrTimer) {
        return new ConnectOptions(port, gidIndex, pkeyIndex, accessFlags, pathMtu, sendPsn, newTimeout,
                newRetryCount, newRnrRetry, newMinRnrTimer, maxRdAtomic, maxDestRdAtomic, qkey);
    }

    public ConnectOptions withAccessFlags(Set<AccessFlag> value) {
        return new ConnectOptions(port, gidIndex, pkeyIndex, value, pathMtu, sendPsn, timeout, retryCount,
                rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic, qkey);
    }

    public ConnectOptions withQkey(int value) {
        return new ConnectOptions(port, gidIndex, pkeyIndex, accessFlags, pathMtu, sendPsn, timeout, retryCount,
                rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic, value);
    }

    /** The RESET → INIT attributes (verbs manual §6.2.1); UD takes a Q_Key instead of access flags. */
    public QueuePairAttributes initAttributes(QueuePairType type) {
        QueuePairAttributes.Builder init = QueuePairAttributes.builder().state(QueuePairState.INIT)
                .pkeyIndex(pkeyIndex).port(port);
        return (type == QueuePairType.UD ? init.qkey(qkey) : init.accessFlags(accessFlags)).build();
    }

    /** The INIT → RTR attributes (verbs manual §6.2.2) towards {@code remote}; UD needs none but the state. */
    public QueuePairAttributes readyToReceiveAttributes(QueuePairType type, QueuePairEndpoint remote) {
        QueuePairAttributes.Builder rtr = QueuePairAttributes.builder().state(QueuePairState.RTR);
        if (type.isConnected()) {
            rtr.addressVector(remote.addressVector(port, gidIndex)).pathMtu(pathMtu)
                    .destQpNumber(remote.qpNumber()).receivePsn(remote.packetSequenceNumber());
            if (type == QueuePairType.RC) {
                rtr.maxDestRdAtomic(maxDestRdAtomic).minRnrTimer(minRnrTimer);
            }
        }
        return rtr.build();
    }

    /** The RTR → RTS attributes (verbs manual §6.2.3); only RC has ACK timeout and retries. */
    public QueuePairAttributes readyToSendAttributes(QueuePairType type) {
        QueuePairAttributes.Builder rts = QueuePairAttributes.builder().state(QueuePairState.RTS).sendPsn(sendPsn);
        if (type == QueuePairType.RC) {
            rts.timeout(timeout).retryCount(retryCount).rnrRetry(rnrRetry).maxRdAtomic(maxRdAtomic);
        }
        return rts.build();
    }
}

package io.rdma.verbs.api;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The settings of the RESET → INIT → RTR → RTS walk (verbs manual §6.2.4) that
 * {@link QueuePair#connect} performs in one call, and of the endpoint a QP advertises
 * ({@link QueuePair#localEndpoint}): every attribute applications set from {@code ibv_modify_qp}
 * examples, each with the verbs manual's default. Immutable; change a copy through
 * {@link #toBuilder()}. This QP's starting send PSN is set here only: the endpoint it advertises
 * carries it, and RTS starts from it.
 *
 * <p>Thread-safe (immutable).
 */
public final class ConnectOptions {

    private static final ConnectOptions DEFAULTS = new Builder().build();

    private final int port;
    private final int gidIndex;
    private final int pkeyIndex;
    private final Set<AccessFlag> accessFlags;
    private final Mtu pathMtu;
    private final int sendPsn;
    private final int timeout;
    private final int retryCount;
    private final int rnrRetry;
    private final int minRnrTimer;
    private final int maxRdAtomic;
    private final int maxDestRdAtomic;
    private final int qkey;
    private final int serviceLevel;
    private final int hopLimit;
    private final int trafficClass;
    private final int flowLabel;
    private final boolean globalRoute;

    private ConnectOptions(Builder builder) {
        port = builder.port;
        gidIndex = builder.gidIndex;
        pkeyIndex = builder.pkeyIndex;
        accessFlags = Set.copyOf(builder.accessFlags);
        pathMtu = builder.pathMtu;
        sendPsn = builder.sendPsn;
        timeout = builder.timeout;
        retryCount = builder.retryCount;
        rnrRetry = builder.rnrRetry;
        minRnrTimer = builder.minRnrTimer;
        maxRdAtomic = builder.maxRdAtomic;
        maxDestRdAtomic = builder.maxDestRdAtomic;
        qkey = builder.qkey;
        serviceLevel = builder.serviceLevel;
        hopLimit = builder.hopLimit;
        trafficClass = builder.trafficClass;
        flowLabel = builder.flowLabel;
        globalRoute = builder.globalRoute;
    }

    /** Port 1, GID index 0, the verbs manual's defaults for everything else. */
    public static ConnectOptions defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these options, to change some of them. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** {@code port_num}: the local port the QP uses. */
    public int port() { return port; }
    /** {@code sgid_index}: the local GID the QP sends from (RoCE: picks IPv4/IPv6 and RoCE v1/v2). */
    public int gidIndex() { return gidIndex; }
    public int pkeyIndex() { return pkeyIndex; }
    /** {@code qp_access_flags}: what the remote side may do to this QP's memory (RC and UC). */
    public Set<AccessFlag> accessFlags() { return accessFlags; }
    public Mtu pathMtu() { return pathMtu; }
    /** {@code sq_psn}: the PSN of this QP's first packet; {@link QueuePair#localEndpoint} advertises it. */
    public int sendPsn() { return sendPsn; }
    /** Local ACK timeout exponent: 4.096 µs × 2^timeout (0 = infinite); RC only. */
    public int timeout() { return timeout; }
    /** Transport retries before {@code IBV_WC_RETRY_EXC_ERR} (max 7); RC only. */
    public int retryCount() { return retryCount; }
    /** RNR NAK retries before {@code IBV_WC_RNR_RETRY_EXC_ERR} (7 = infinite); RC only. */
    public int rnrRetry() { return rnrRetry; }
    /** The RNR NAK timer this QP asks senders to wait, as the IB encoding (0–31); RC only. */
    public int minRnrTimer() { return minRnrTimer; }
    /** {@code max_rd_atomic}: RDMA reads and atomics this QP has outstanding as initiator; RC only. */
    public int maxRdAtomic() { return maxRdAtomic; }
    /** {@code max_dest_rd_atomic}: RDMA reads and atomics this QP serves at once as responder; RC only. */
    public int maxDestRdAtomic() { return maxDestRdAtomic; }
    /** The Q_Key of a UD QP; ignored by RC and UC. */
    public int qkey() { return qkey; }
    /** {@code ah_attr.sl}: the service level (InfiniBand; on RoCE the driver maps it to a priority). */
    public int serviceLevel() { return serviceLevel; }
    /** {@code grh.hop_limit}, when a GRH is used. */
    public int hopLimit() { return hopLimit; }
    /** {@code grh.traffic_class}, when a GRH is used (RoCE v2: the DSCP and ECN bits of the IP header). */
    public int trafficClass() { return trafficClass; }
    /** {@code grh.flow_label}, when a GRH is used. */
    public int flowLabel() { return flowLabel; }

    /**
     * Whether the path always carries a GRH. Without it, a GRH is used when the remote endpoint
     * has no LID (RoCE, where the GID is the address); set it for InfiniBand across subnets.
     */
    public boolean globalRoute() { return globalRoute; }

    /** The RESET → INIT attributes (verbs manual §6.2.1); UD takes a Q_Key instead of access flags. */
    public QueuePairAttributes initAttributes(QueuePairType type) {
        QueuePairAttributes.Builder init = QueuePairAttributes.builder().state(QueuePairState.INIT)
                .pkeyIndex(pkeyIndex).port(port);
        return (type == QueuePairType.UD ? init.qkey(qkey) : init.accessFlags(accessFlags)).build();
    }

    /** The INIT → RTR attributes (verbs manual §6.2.2) towards {@code remote}; UD needs none but the state. */
    public QueuePairAttributes readyToReceiveAttributes(QueuePairType type, @Nullable QueuePairEndpoint remote) {
        QueuePairAttributes.Builder rtr = QueuePairAttributes.builder().state(QueuePairState.RTR);
        if (type.isConnected()) {
            Objects.requireNonNull(remote, () -> "INIT → RTR of a " + type + " QP needs the remote endpoint");
            rtr.addressVector(remote.addressVector(this)).pathMtu(pathMtu)
                    .destQpNumber(remote.qpNumber()).receivePsn(remote.packetSequenceNumber());
            if (type == QueuePairType.RC) {
                rtr.maxDestRdAtomic(maxDestRdAtomic).minRnrTimer(minRnrTimer);
            }
        }
        return rtr.build();
    }

    /** The RTR → RTS attributes (verbs manual §6.2.3); only RC has ACK timeout, retries and reads outstanding. */
    public QueuePairAttributes readyToSendAttributes(QueuePairType type) {
        QueuePairAttributes.Builder rts = QueuePairAttributes.builder().state(QueuePairState.RTS).sendPsn(sendPsn);
        if (type == QueuePairType.RC) {
            rts.timeout(timeout).retryCount(retryCount).rnrRetry(rnrRetry).maxRdAtomic(maxRdAtomic);
        }
        return rts.build();
    }

    /** Builds {@link ConnectOptions}; starts from the defaults. Not thread-safe. */
    public static final class Builder {
        private int port = 1;
        private int gidIndex;
        private int pkeyIndex;
        private Set<AccessFlag> accessFlags = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ,
                AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_ATOMIC);
        private Mtu pathMtu = Mtu.MTU_1024;
        private int sendPsn;
        private int timeout = 14;
        private int retryCount = 7;
        private int rnrRetry = 7;
        private int minRnrTimer = ReliabilitySettings.DEFAULT_RNR_TIMER;
        private int maxRdAtomic = 16;
        private int maxDestRdAtomic = 16;
        private int qkey = 0x11111111;
        private int serviceLevel;
        private int hopLimit = 64;
        private int trafficClass;
        private int flowLabel;
        private boolean globalRoute;

        private Builder() {
        }

        private Builder(ConnectOptions options) {
            port = options.port;
            gidIndex = options.gidIndex;
            pkeyIndex = options.pkeyIndex;
            accessFlags = options.accessFlags;
            pathMtu = options.pathMtu;
            sendPsn = options.sendPsn;
            timeout = options.timeout;
            retryCount = options.retryCount;
            rnrRetry = options.rnrRetry;
            minRnrTimer = options.minRnrTimer;
            maxRdAtomic = options.maxRdAtomic;
            maxDestRdAtomic = options.maxDestRdAtomic;
            qkey = options.qkey;
            serviceLevel = options.serviceLevel;
            hopLimit = options.hopLimit;
            trafficClass = options.trafficClass;
            flowLabel = options.flowLabel;
            globalRoute = options.globalRoute;
        }

        public Builder port(int value) { port = value; return this; }
        public Builder gidIndex(int value) { gidIndex = value; return this; }
        public Builder pkeyIndex(int value) { pkeyIndex = value; return this; }
        public Builder accessFlags(Set<AccessFlag> value) { accessFlags = value; return this; }
        public Builder pathMtu(Mtu value) { pathMtu = value; return this; }
        public Builder sendPsn(int value) { sendPsn = value; return this; }
        /** The RC reliability settings: ACK timeout exponent, retries, RNR retries, and the RNR timer asked of senders. */
        public Builder retries(int ackTimeout, int retries, int rnrRetries, int rnrTimer) {
            timeout = ackTimeout;
            retryCount = retries;
            rnrRetry = rnrRetries;
            minRnrTimer = rnrTimer;
            return this;
        }
        /** {@code max_rd_atomic} and {@code max_dest_rd_atomic}: reads and atomics outstanding as initiator and as responder. */
        public Builder readAtomicDepths(int initiator, int responder) {
            maxRdAtomic = initiator;
            maxDestRdAtomic = responder;
            return this;
        }
        public Builder qkey(int value) { qkey = value; return this; }
        public Builder serviceLevel(int value) { serviceLevel = value; return this; }
        public Builder hopLimit(int value) { hopLimit = value; return this; }
        public Builder trafficClass(int value) { trafficClass = value; return this; }
        public Builder flowLabel(int value) { flowLabel = value; return this; }
        public Builder globalRoute(boolean value) { globalRoute = value; return this; }

        /**
         * The options; an attribute outside the range its {@code ibv_qp_attr} field holds is refused.
         *
         * @throws IllegalArgumentException when an attribute is outside the range its field holds
         */
        public ConnectOptions build() {
            inRange("port", port, 1, 255);
            inRange("gidIndex", gidIndex, 0, 255);
            inRange("pkeyIndex", pkeyIndex, 0, 0xffff);
            inRange("timeout", timeout, 0, 31);
            inRange("retryCount", retryCount, 0, 7);
            inRange("rnrRetry", rnrRetry, 0, 7);
            inRange("minRnrTimer", minRnrTimer, 0, 31);
            inRange("maxRdAtomic", maxRdAtomic, 0, 255);
            inRange("maxDestRdAtomic", maxDestRdAtomic, 0, 255);
            inRange("serviceLevel", serviceLevel, 0, 15);
            inRange("hopLimit", hopLimit, 0, 255);
            inRange("trafficClass", trafficClass, 0, 255);
            inRange("flowLabel", flowLabel, 0, (1 << 20) - 1);
            return new ConnectOptions(this);
        }

        private static void inRange(String attribute, int value, int min, int max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException("connect option " + attribute + " is " + value
                        + "; ibv_modify_qp takes " + min + " to " + max);
            }
        }
    }
}

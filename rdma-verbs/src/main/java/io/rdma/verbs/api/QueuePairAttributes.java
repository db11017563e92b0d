package io.rdma.verbs.api;

import java.util.Set;

/**
 * {@code struct ibv_qp_attr} together with its {@code attr_mask}: an attribute is in the mask
 * exactly when it is non-null. Used for {@code ibv_modify_qp} (build one with
 * {@link #builder()}) and returned, fully populated, by {@code ibv_query_qp}.
 */
public record QueuePairAttributes(
        QueuePairState state,
        Integer pkeyIndex,
        Integer port,
        Set<AccessFlag> accessFlags,
        Integer qkey,
        Mtu pathMtu,
        Integer destQpNumber,
        Integer receivePsn,
        Integer sendPsn,
        AddressVector addressVector,
        Integer maxDestRdAtomic,
        Integer maxRdAtomic,
        Integer minRnrTimer,
        Integer timeout,
        Integer retryCount,
        Integer rnrRetry) {

    public QueuePairAttributes {
        accessFlags = accessFlags == null ? null : Set.copyOf(accessFlags);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builder; every setter puts that attribute in the mask. */
    public static final class Builder {
        private QueuePairState state;
        private Integer pkeyIndex;
        private Integer port;
        private Set<AccessFlag> accessFlags;
        private Integer qkey;
        private Mtu pathMtu;
        private Integer destQpNumber;
        private Integer receivePsn;
        private Integer sendPsn;
        private AddressVector addressVector;
        private Integer maxDestRdAtomic;
        private Integer maxRdAtomic;
        private Integer minRnrTimer;
        private Integer timeout;
        private Integer retryCount;
        private Integer rnrRetry;

        public Builder state(QueuePairState value) { state = value; return this; }
        public Builder pkeyIndex(int value) { pkeyIndex = value; return this; }
        public Builder port(int value) { port = value; return this; }
        public Builder accessFlags(Set<AccessFlag> value) { accessFlags = value; return this; }
        public Builder qkey(int value) { qkey = value; return this; }
        public Builder pathMtu(Mtu value) { pathMtu = value; return this; }
        public Builder destQpNumber(int value) { destQpNumber = value; return this; }
        public Builder receivePsn(int value) { receivePsn = value; return this; }
        public Builder sendPsn(int value) { sendPsn = value; return this; }
        public Builder addressVector(AddressVector value) { addressVector = value; return this; }
        public Builder maxDestRdAtomic(int value) { maxDestRdAtomic = value; return this; }
        public Builder maxRdAtomic(int value) { maxRdAtomic = value; return this; }
        public Builder minRnrTimer(int value) { minRnrTimer = value; return this; }
        public Builder timeout(int value) { timeout = value; return this; }
        public Builder retryCount(int value) { retryCount = value; return this; }
        public Builder rnrRetry(int value) { rnrRetry = value; return this; }

        public QueuePairAttributes build() {
            return new QueuePairAttributes(state, pkeyIndex, port, accessFlags, qkey, pathMtu, destQpNumber,
                    receivePsn, sendPsn, addressVector, maxDestRdAtomic, maxRdAtomic, minRnrTimer, timeout,
                    retryCount, rnrRetry);
        }
    }
}

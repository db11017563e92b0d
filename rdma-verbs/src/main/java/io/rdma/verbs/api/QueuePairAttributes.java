package io.rdma.verbs.api;

import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_qp_attr} together with its {@code attr_mask}: an attribute is in the mask
 * exactly when it is non-null. Used for {@code ibv_modify_qp} (build one with
 * {@link #builder()}) and returned, fully populated, by {@code ibv_query_qp}.
 *
 * <p>Immutable, so thread-safe.
 */
public record QueuePairAttributes(
        @Nullable QueuePairState state,
        @Nullable Integer pkeyIndex,
        @Nullable Integer port,
        @Nullable Set<AccessFlag> accessFlags,
        @Nullable Integer qkey,
        @Nullable Mtu pathMtu,
        @Nullable Integer destQpNumber,
        @Nullable Integer receivePsn,
        @Nullable Integer sendPsn,
        @Nullable AddressVector addressVector,
        @Nullable Integer maxDestRdAtomic,
        @Nullable Integer maxRdAtomic,
        @Nullable Integer minRnrTimer,
        @Nullable Integer timeout,
        @Nullable Integer retryCount,
        @Nullable Integer rnrRetry) {

    public QueuePairAttributes {
        accessFlags = accessFlags == null ? null : Set.copyOf(accessFlags);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builder; every setter puts that attribute in the mask. */
    public static final class Builder {
        private @Nullable QueuePairState state;
        private @Nullable Integer pkeyIndex;
        private @Nullable Integer port;
        private @Nullable Set<AccessFlag> accessFlags;
        private @Nullable Integer qkey;
        private @Nullable Mtu pathMtu;
        private @Nullable Integer destQpNumber;
        private @Nullable Integer receivePsn;
        private @Nullable Integer sendPsn;
        private @Nullable AddressVector addressVector;
        private @Nullable Integer maxDestRdAtomic;
        private @Nullable Integer maxRdAtomic;
        private @Nullable Integer minRnrTimer;
        private @Nullable Integer timeout;
        private @Nullable Integer retryCount;
        private @Nullable Integer rnrRetry;

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

package io.rdma.boot.autoconfigure.endpoint;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** What {@code /actuator/rdma} shows and allows beyond reading values. */
@ConfigurationProperties(RdmaEndpointProperties.PREFIX)
public class RdmaEndpointProperties {

    public static final String PREFIX = "rdma.endpoint";

    /**
     * Whether each memory pool shows its lkey, rkey, address and length. Off by default: with the
     * rkey and address a peer that reaches the fabric can read and write the pool's memory, as far
     * as its access flags allow.
     */
    private boolean showKeys;

    /** The write operation that sets or resets a completion counter. */
    private final CounterWrites counterWrites = new CounterWrites();

    public boolean isShowKeys() {
        return showKeys;
    }

    public void setShowKeys(boolean showKeys) {
        this.showKeys = showKeys;
    }

    public CounterWrites getCounterWrites() {
        return counterWrites;
    }

    /** Setting completion counters through {@code POST /actuator/rdma/{device}/{counter}}. */
    public static class CounterWrites {

        /**
         * Whether the endpoint sets completion counters (ibv_set_comp_cntr, ibv_set_err_comp_cntr).
         * Off by default, as a set loses the completions counted meanwhile; a write while off is
         * answered 403, naming this property.
         */
        private boolean enabled;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }
}

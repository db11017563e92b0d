package io.rdma.verbs.api;

/**
 * {@code phys_state} of {@code struct ibv_port_attr}: the state of the port's physical link, as
 * InfiniBand's PortInfo numbers it (RoCE devices report the same codes for their Ethernet link).
 * A port is ACTIVE only over a link that is {@link #LINK_UP}; a pulled cable leaves it
 * {@link #POLLING} for a peer, an administratively disabled one {@link #DISABLED}.
 *
 * <p>Immutable, so thread-safe.
 */
public enum PhysicalPortState {
    /** 0: the device reports no state (the IB "no state change" code). */
    NO_STATE(0),
    SLEEP(1),
    POLLING(2),
    DISABLED(3),
    PORT_CONFIGURATION_TRAINING(4),
    LINK_UP(5),
    LINK_ERROR_RECOVERY(6),
    PHY_TEST(7);

    private final int code;

    PhysicalPortState(int code) {
        this.code = code;
    }

    /** The numeric {@code phys_state}: what node_exporter's {@code physical_state_id} shows. */
    public int code() {
        return code;
    }

    /** The state of a {@code phys_state} value; {@link #NO_STATE} for a code outside 0 to 7. */
    public static PhysicalPortState of(int code) {
        for (PhysicalPortState state : values()) {
            if (state.code == code) {
                return state;
            }
        }
        return NO_STATE;
    }
}

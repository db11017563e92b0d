package io.rdma.verbs.api;

/**
 * {@code struct ibv_port_attr} (verbs manual §2.4).
 *
 * @param maxMessageSize {@code max_msg_sz}, a {@code uint32_t}: a long so that values from 2^31 up stay positive
 * @param activeSpeed {@code active_speed} as the IB encoding (1 = SDR 2.5 Gb/s per lane ... 64 = HDR)
 * @param activeWidth {@code active_width} as the IB encoding (1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x)
 *
 * <p>Immutable, so thread-safe.
 */
public record PortAttributes(
        int portNumber,
        PortState state,
        Mtu maxMtu,
        Mtu activeMtu,
        int lid,
        int smLid,
        int lmc,
        int gidTableLength,
        int pkeyTableLength,
        long maxMessageSize,
        int activeSpeed,
        int activeWidth,
        LinkLayer linkLayer) {

    public boolean isActive() {
        return state == PortState.ACTIVE;
    }
}

package io.rdma.verbs.api;

/**
 * {@code struct ibv_port_attr} (manual §2.4).
 *
 * @param activeSpeed {@code active_speed} as the IB encoding (1 = SDR 2.5 Gb/s per lane ... 64 = HDR)
 * @param activeWidth {@code active_width} as the IB encoding (1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x)
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
        int maxMessageSize,
        int activeSpeed,
        int activeWidth,
        LinkLayer linkLayer) {

    public boolean isActive() {
        return state == PortState.ACTIVE;
    }

    /** Lane count from the {@code active_width} encoding. */
    public int laneCount() {
        return switch (activeWidth) {
            case 1 -> 1;
            case 2 -> 4;
            case 4 -> 8;
            case 8 -> 12;
            case 16 -> 2;
            default -> 0;
        };
    }

    /** Per-lane signalling rate in Gb/s from the {@code active_speed} encoding. */
    public double laneGbps() {
        return switch (activeSpeed) {
            case 1 -> 2.5;
            case 2 -> 5.0;
            case 4, 8 -> 10.0;
            case 16 -> 14.0;
            case 32 -> 25.0;
            case 64 -> 50.0;
            case 128 -> 100.0;
            default -> 0.0;
        };
    }
}

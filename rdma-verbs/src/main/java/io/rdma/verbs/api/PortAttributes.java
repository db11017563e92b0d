package io.rdma.verbs.api;

/**
 * {@code struct ibv_port_attr} (verbs manual §2.4).
 *
 * @param maxMessageSize {@code max_msg_sz}, a {@code uint32_t}: a long so that values from 2^31 up stay positive
 * @param activeSpeed {@code active_speed} as the IB encoding (1 = SDR 2.5 Gb/s per lane ... 64 = HDR)
 * @param physicalState {@code phys_state}: the physical link under the logical {@code state}
 * @param activeWidth {@code active_width} as the IB encoding (1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x)
 *
 * <p>Immutable, so thread-safe.
 */
public record PortAttributes(
        int portNumber,
        PortState state,
        PhysicalPortState physicalState,
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

    /** 12.5 MB/s: a tenth of a Gb/s, the unit of the kernel's lane rates below. */
    private static final long BYTES_PER_SECOND_PER_TENTH_GBPS = 12_500_000L;

    public boolean isActive() {
        return state == PortState.ACTIVE;
    }

    /**
     * The signalling rate of the link in bytes per second: lane rate times lane count, computed
     * as the kernel's sysfs {@code rate} file shows it ({@code 100 Gb/sec (4X EDR)} for EDR at 4x;
     * node_exporter's {@code rate_bytes_per_second} is that number of Gb/s times 125,000,000). As
     * there, an unknown {@code active_speed} counts as SDR; an unknown width gives 0, where sysfs
     * has no rate. A RoCE device reports the speed and width that match its Ethernet link.
     */
    public long rateBytesPerSecond() {
        long lanes = switch (activeWidth) {
            case 1 -> 1;
            case 16 -> 2;
            case 2 -> 4;
            case 4 -> 8;
            case 8 -> 12;
            default -> 0;
        };
        long tenthsOfGbpsPerLane = switch (activeSpeed) {
            case 2 -> 50;    // DDR
            case 4, 8 -> 100; // QDR, FDR10
            case 16 -> 140;  // FDR
            case 32 -> 250;  // EDR
            case 64 -> 500;  // HDR
            case 128 -> 1000; // NDR
            default -> 25;   // SDR, and what the kernel assumes for a code it does not know
        };
        return lanes * tenthsOfGbpsPerLane * BYTES_PER_SECOND_PER_TENTH_GBPS;
    }
}

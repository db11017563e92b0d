package io.rdma.verbs.api;

import java.util.Set;

/**
 * {@code struct ibv_device_attr} (verbs manual §2.3), plus the extended limits this API needs to
 * decide what a device can do (completion timestamps, completion counters and flow counters) and
 * the identity sysfs gives the board ({@code board_id}, {@code hca_type}), which monitoring shows
 * beside the firmware version.
 *
 * <p>{@code maxMrSize}, {@code pageSizeCap} and {@code completionCounterMaxValue} are unsigned
 * 64-bit values held in a {@code long}: rxe and mlx5 report {@code max_mr_size} as 2^64 - 1, which
 * is {@code -1} read signed. Compare them with {@link Long#compareUnsigned} and print them with
 * {@link Unsigned64}. GUIDs are {@link Guid}s.
 *
 * @param firmwareVersion               {@code fw_ver}
 * @param boardId                       sysfs {@code board_id} (mlx5: the PSID, {@code MT_0000000010}); empty
 *                                      where the driver has none, as rxe
 * @param hcaType                       sysfs {@code hca_type} (mlx5: {@code MT4119}); empty where the driver
 *                                      has none, as rxe
 * @param maxMrSize                     unsigned: the largest region {@code ibv_reg_mr} accepts
 * @param pageSizeCap                   unsigned: the page sizes the device supports, as a bit mask
 * @param completionCounterMaxValue     unsigned: the value at which a completion counter wraps
 * @param supportedCompletionCounterOps op kinds {@code ibv_qp_attach_comp_cntr} accepts; empty when
 *                                      {@code maxCompletionCounters} is 0
 *
 * <p>Immutable, so thread-safe.
 */
public record DeviceAttributes(
        String firmwareVersion,
        String boardId,
        String hcaType,
        Guid nodeGuid,
        Guid systemImageGuid,
        long maxMrSize,
        long pageSizeCap,
        int vendorId,
        int vendorPartId,
        int hardwareVersion,
        int maxQp,
        int maxQpWr,
        int maxSge,
        int maxCq,
        int maxCqe,
        int maxMr,
        int maxPd,
        int maxQpRdAtom,
        int maxQpInitRdAtom,
        AtomicCapability atomicCapability,
        int maxAh,
        int maxSrq,
        int maxSrqWr,
        int maxSrqSge,
        int maxInlineData,
        int physicalPortCount,
        boolean completionTimestamps,
        int maxCompletionCounters,
        long completionCounterMaxValue,
        Set<CompletionCounterOp> supportedCompletionCounterOps,
        boolean flowCounters) {

    public DeviceAttributes {
        supportedCompletionCounterOps = Set.copyOf(supportedCompletionCounterOps);
    }

    public boolean supportsAtomics() {
        return atomicCapability != AtomicCapability.NONE;
    }

    /** Whether one region of {@code bytes} is within {@code max_mr_size} (compared unsigned). */
    public boolean allowsRegionOf(long bytes) {
        return Long.compareUnsigned(bytes, maxMrSize) <= 0;
    }

    public boolean supportsCompletionCounters() {
        return maxCompletionCounters > 0;
    }
}

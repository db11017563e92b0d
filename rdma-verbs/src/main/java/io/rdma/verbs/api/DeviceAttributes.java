package io.rdma.verbs.api;

import java.util.Set;

/**
 * {@code struct ibv_device_attr} (manual §2.3), plus the extended limits this API needs to
 * decide what a device can do: completion timestamps, completion counters and flow counters.
 *
 * @param supportedCompletionCounterOps op kinds {@code ibv_qp_attach_comp_cntr} accepts; empty when
 *                                      {@code maxCompletionCounters} is 0
 */
public record DeviceAttributes(
        String firmwareVersion,
        long nodeGuid,
        long systemImageGuid,
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

    public boolean supportsCompletionCounters() {
        return maxCompletionCounters > 0;
    }
}

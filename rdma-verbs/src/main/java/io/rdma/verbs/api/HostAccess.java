package io.rdma.verbs.api;

import java.util.Objects;

/**
 * What the host lets this process do with a device, the first things that stop an RDMA service
 * on a new machine or container: open the device's nodes and pin memory for registrations.
 * The simulated provider answers from the device's {@code DeviceSpec} (each simulated device
 * stands for an HCA in a host of its own); the native provider reads the real system.
 *
 * @param verbsNode the device's {@code /dev/infiniband/uverbsN}, which {@code ibv_open_device} opens
 * @param connectionManagerNode {@code /dev/infiniband/rdma_cm}, which every rdma_cm connection needs
 *
 * <p>Immutable, so thread-safe.
 */
public record HostAccess(DeviceNode verbsNode, DeviceNode connectionManagerNode, LockedMemoryAllowance lockedMemory) {

    public HostAccess {
        Objects.requireNonNull(verbsNode, "verbsNode");
        Objects.requireNonNull(connectionManagerNode, "connectionManagerNode");
        Objects.requireNonNull(lockedMemory, "lockedMemory");
    }
}

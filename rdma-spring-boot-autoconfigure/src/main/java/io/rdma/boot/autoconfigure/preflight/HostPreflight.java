package io.rdma.boot.autoconfigure.preflight;

import io.rdma.verbs.api.Device;
import io.rdma.verbs.api.DeviceNode;
import io.rdma.verbs.api.DeviceNodeAccess;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.HostAccess;
import io.rdma.verbs.api.LockedMemoryAllowance;

/**
 * Checks what the host grants before a device is opened: an unusable {@code uverbsN} is why
 * {@code ibv_open_device} fails, a missing {@code rdma_cm} why every connection fails, and a
 * locked-memory limit below what the pools pin why {@code ibv_reg_mr} fails with ENOMEM.
 * Each of these fails every time, so each fails the start.
 */
public final class HostPreflight {

    private HostPreflight() {
    }

    public static void check(Device device, HostRequirements requirements) {
        HostAccess access = device.hostAccess();
        verbsNode(device, access.verbsNode(), requirements.deviceProperty());
        if (requirements.connectionProperty() != null) {
            connectionManagerNode(access.connectionManagerNode(), requirements.connectionProperty());
        }
        lockedMemory(access.lockedMemory(), requirements);
    }

    private static void verbsNode(Device device, DeviceNode node, String property) {
        if (!node.usable()) {
            throw new RdmaPreflightException("device node", property, node.path() + " of device '" + device.name()
                    + "' is " + describe(node.access()), "ibv_open_device", errno(node.access()),
                    nodeAction(node, "the ib_uverbs module is loaded (modprobe ib_uverbs)"));
        }
    }

    private static void connectionManagerNode(DeviceNode node, String property) {
        if (!node.usable()) {
            throw new RdmaPreflightException("device node", property, node.path() + ", which every rdma_cm"
                    + " connection needs, is " + describe(node.access()), "rdma_create_event_channel",
                    errno(node.access()), nodeAction(node, "the rdma_ucm module is loaded (modprobe rdma_ucm)"));
        }
    }

    private static String nodeAction(DeviceNode node, String moduleLoaded) {
        if (node.access() == DeviceNodeAccess.MISSING) {
            return "Make sure " + moduleLoaded + ", and in a container pass the node in (docker run --device "
                    + node.path() + ", or the RDMA device plugin on Kubernetes).";
        }
        return "Give the service's user read and write access to " + node.path() + " (e.g. the udev rule of"
                + " rdma-core: group 'rdma', mode 0660, and the user in that group).";
    }

    private static String describe(DeviceNodeAccess access) {
        return switch (access) {
            case MISSING -> "missing";
            case DENIED -> "neither readable nor writable by this process";
            case READ_ONLY -> "not writable by this process";
            case WRITE_ONLY -> "not readable by this process";
            case READ_WRITE -> "usable";
        };
    }

    private static Errno errno(DeviceNodeAccess access) {
        return access == DeviceNodeAccess.MISSING ? Errno.ENOENT : Errno.EACCES;
    }

    private static void lockedMemory(LockedMemoryAllowance allowance, HostRequirements requirements) {
        if (!allowance.permits(requirements.pinnedBytes())) {
            throw new RdmaPreflightException("locked memory", requirements.pinningProperty(), "the memory pools pin "
                    + requirements.pinnedBytes() + " bytes in all, above this process's locked-memory limit"
                    + " (RLIMIT_MEMLOCK, ulimit -l) of " + allowance.describeLimit() + ", and the process lacks"
                    + " CAP_IPC_LOCK", "ibv_reg_mr", Errno.ENOMEM, "Raise the limit to at least "
                    + requirements.pinnedBytes() + " bytes plus what queues pin on hardware providers (systemd:"
                    + " LimitMEMLOCK=infinity; docker run --ulimit memlock=-1:-1; /etc/security/limits.conf:"
                    + " memlock unlimited), grant the process CAP_IPC_LOCK, or declare smaller pools"
                    + " (count x buffer-size).");
        }
    }
}

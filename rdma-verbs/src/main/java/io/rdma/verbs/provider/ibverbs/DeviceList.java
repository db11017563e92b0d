package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.TransportType;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.provider.ibverbs.generated.ibv_device;
import io.rdma.verbs.provider.ibverbs.generated.rdma_h;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * {@code ibv_get_device_list}: the devices, or why there are none. ENOSYS (a kernel without
 * RDMA support, or without {@code ib_uverbs}) is not a failure but an empty list with that
 * reason, so provider selection can fall back.
 */
final class DeviceList implements AutoCloseable {

    private static final CheckedCall GET_DEVICE_LIST = CheckedCall.bind("ibv_get_device_list",
            rdma_h.ibv_get_device_list$address(), rdma_h.ibv_get_device_list$descriptor());

    private final MemorySegment list;
    private final List<MemorySegment> devices;
    private final @Nullable String emptyReason;

    private DeviceList(MemorySegment list, List<MemorySegment> devices, @Nullable String emptyReason) {
        this.list = list;
        this.devices = devices;
        this.emptyReason = emptyReason;
    }

    static DeviceList open() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment list;
            try {
                list = GET_DEVICE_LIST.pointer(null, count);
            } catch (VerbsException e) {
                if (e.errno() == Errno.ENOSYS) {
                    return new DeviceList(MemorySegment.NULL, List.of(), "ibv_get_device_list failed with ENOSYS "
                            + "(38): this kernel has no RDMA support (no ib_uverbs); load a device driver such as "
                            + "rdma_rxe to get a device");
                }
                throw e;
            }
            int n = count.get(ValueLayout.JAVA_INT, 0);
            MemorySegment array = list.reinterpret(ValueLayout.ADDRESS.byteSize() * n);
            List<MemorySegment> devices = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                devices.add(array.getAtIndex(ValueLayout.ADDRESS, i).reinterpret(ibv_device.sizeof()));
            }
            return new DeviceList(list, List.copyOf(devices), n == 0
                    ? "libibverbs found no RDMA device (none in /sys/class/infiniband, or no user-space provider "
                            + "for it: install ibverbs-providers)" : null);
        }
    }

    List<MemorySegment> devices() {
        return devices;
    }

    /** Why the list is empty; null when it is not. */
    @Nullable String emptyReason() {
        return emptyReason;
    }

    static String name(MemorySegment device) {
        return rdma_h.ibv_get_device_name(device).reinterpret(Long.MAX_VALUE).getString(0);
    }

    /** {@code ibv_get_device_guid}: big-endian on the wire, returned here as a host value. */
    static long guid(MemorySegment device) {
        return Long.reverseBytes(rdma_h.ibv_get_device_guid(device));
    }

    /** {@code transport_type}, as {@code enum ibv_transport_type} numbers it. */
    static TransportType transportType(MemorySegment device) {
        int type = ibv_device.transport_type(device);
        if (type == rdma_h.IBV_TRANSPORT_IB()) {
            return TransportType.INFINIBAND;
        } else if (type == rdma_h.IBV_TRANSPORT_IWARP()) {
            return TransportType.IWARP;
        } else if (type == rdma_h.IBV_TRANSPORT_USNIC()) {
            return TransportType.USNIC;
        } else if (type == rdma_h.IBV_TRANSPORT_USNIC_UDP()) {
            return TransportType.USNIC_UDP;
        } else if (type == rdma_h.IBV_TRANSPORT_UNSPECIFIED()) {
            return TransportType.UNSPECIFIED;
        }
        return TransportType.UNKNOWN;
    }

    /** The device's sysfs directory, {@code /sys/class/infiniband/<name>}. */
    static String sysfsPath(MemorySegment device) {
        return ibv_device.ibdev_path(device).getString(0);
    }

    @Override
    public void close() {
        if (list.address() != 0) {
            rdma_h.ibv_free_device_list(list);
        }
    }
}

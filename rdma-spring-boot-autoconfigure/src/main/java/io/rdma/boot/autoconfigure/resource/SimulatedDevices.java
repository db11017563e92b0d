package io.rdma.boot.autoconfigure.resource;

import io.rdma.boot.autoconfigure.RdmaProperties;
import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.GidType;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.LockedMemoryAllowance;
import io.rdma.verbs.api.TransportType;
import io.rdma.verbs.provider.simulated.DeviceSpec;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * The devices the simulated fabric creates: those described under {@code rdma.simulated.devices},
 * plus every device named under {@code rdma.devices} that is not described there, so the same
 * configuration that names the cluster's HCAs also runs on a laptop. A declared device is
 * created, and described, under the name it is opened by ({@link DevicePlan#deviceName()}), not
 * its key.
 */
final class SimulatedDevices {

    private SimulatedDevices() {
    }

    static List<DeviceSpec> specs(RdmaProperties properties, List<DevicePlan> devices) {
        Map<String, RdmaProperties.SimulatedDevice> described = properties.getSimulated().getDevices();
        List<DeviceSpec> specs = new ArrayList<>();
        described.forEach((name, device) -> specs.add(spec(name, device)));
        for (DevicePlan device : devices) {
            if (!described.containsKey(device.deviceName())) {
                specs.add(DeviceSpec.named(device.deviceName()).ports(highestPort(device)).build());
            }
        }
        return specs;
    }

    /** Enough ports for every port the device's resources name, so they exist on the simulated device. */
    private static int highestPort(DevicePlan device) {
        return Stream.of(IntStream.of(device.port()), device.queuePairs().stream().mapToInt(DevicePlan.QueuePairPlan::port),
                        device.flows().stream().mapToInt(flow -> flow.spec().port()))
                .flatMapToInt(ports -> ports).max().orElse(1);
    }

    private static DeviceSpec spec(String name, RdmaProperties.SimulatedDevice device) {
        String property = RdmaProperties.PREFIX + ".simulated.devices." + name;
        CheckedResourcePlan.inRange(device.getPorts(), 1, CheckedResourcePlan.MAX_PORT, property + ".ports",
                "a device's port count (u8 phys_port_cnt)");
        DeviceSpec.Builder spec = DeviceSpec.named(name).ports(device.getPorts()).linkLayer(device.getLinkLayer())
                .initialPortState(device.getInitialPortState()).mtu(device.getMtu());
        apply(device.getMaxQp(), property + ".max-qp", spec::maxQp);
        apply(device.getMaxQpWr(), property + ".max-qp-wr", spec::maxQpWr);
        apply(device.getMaxSge(), property + ".max-sge", spec::maxSge);
        apply(device.getMaxCq(), property + ".max-cq", spec::maxCq);
        apply(device.getMaxCqe(), property + ".max-cqe", spec::maxCqe);
        apply(device.getMaxPd(), property + ".max-pd", spec::maxPd);
        apply(device.getMaxSrq(), property + ".max-srq", spec::maxSrq);
        apply(device.getMaxSrqWr(), property + ".max-srq-wr", spec::maxSrqWr);
        apply(device.getMaxInlineData(), property + ".max-inline-data", spec::maxInlineData);
        if (device.getMaxMrSize() != null) {
            CheckedResourcePlan.positive(device.getMaxMrSize().toBytes(), property + ".max-mr-size");
            spec.maxMrSize(device.getMaxMrSize().toBytes());
        }
        if (device.getMaxCompletionCounters() != null) {
            spec.maxCompletionCounters(device.getMaxCompletionCounters());
        }
        if (device.getCompletionCounterOps() != null) {
            spec.completionCounterOps(device.getCompletionCounterOps().isEmpty()
                    ? EnumSet.noneOf(CompletionCounterOp.class) : EnumSet.copyOf(device.getCompletionCounterOps()));
        }
        if (device.getFlowCounters() != null) {
            spec.flowCounters(device.getFlowCounters());
        }
        if (device.getLinkLayer() == LinkLayer.UNSPECIFIED) {
            throw new InvalidRdmaConfigurationException(property + ".link-layer", "a simulated port is InfiniBand or"
                    + " Ethernet; 'unspecified' is what a device that predates link layers reports",
                    "Set link-layer to infiniband or ethernet (RoCE, as rxe).");
        }
        TransportType transport = device.getTransport();
        if (transport != TransportType.INFINIBAND && transport != TransportType.IWARP) {
            throw new InvalidRdmaConfigurationException(property + ".transport", "a simulated device carries the"
                    + " InfiniBand or the iWARP transport, not '" + ConfiguredNames.nameOf(transport) + "'",
                    "Set transport to infiniband (as rxe and InfiniBand HCAs) or iwarp (as siw).");
        }
        if (transport == TransportType.IWARP && device.getLinkLayer() != LinkLayer.ETHERNET) {
            throw new InvalidRdmaConfigurationException(property + ".link-layer", "an iwarp device runs over TCP/IP"
                    + " on Ethernet (siw reports link_layer Ethernet), not on link-layer '"
                    + ConfiguredNames.nameOf(device.getLinkLayer()) + "'", "Set link-layer: ethernet on the iwarp"
                    + " device.");
        }
        // siw reports atomic_cap ATOMIC_NONE: an iWARP device has no atomics
        spec.transport(transport).atomics(transport != TransportType.IWARP);
        if (device.getRoceGidType() == GidType.IB) {
            throw new InvalidRdmaConfigurationException(property + ".roce-gid-type", "RoCE GIDs are roce-v1 or"
                    + " roce-v2, not ib", "Set roce-gid-type to roce-v2 (as rxe) or roce-v1.");
        }
        if (device.getLockedMemoryLimit() != null) {
            CheckedResourcePlan.positive(device.getLockedMemoryLimit().toBytes(), property + ".locked-memory-limit");
        }
        spec.roceGidType(device.getRoceGidType()).subnetManager(device.isSubnetManager())
                .lockedMemory(new LockedMemoryAllowance(device.getLockedMemoryLimit() == null ? OptionalLong.empty()
                        : OptionalLong.of(device.getLockedMemoryLimit().toBytes()), device.isIpcLockCapability()))
                .verbsNodeAccess(device.getVerbsNodeAccess())
                .connectionManagerNodeAccess(device.getConnectionManagerNodeAccess());
        return spec.build();
    }

    private static void apply(@Nullable Integer value, String property, Consumer<Integer> setter) {
        if (value != null) {
            CheckedResourcePlan.positive(value, property);
            setter.accept(value);
        }
    }
}

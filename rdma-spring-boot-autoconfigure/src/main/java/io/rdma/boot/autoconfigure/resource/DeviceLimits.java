package io.rdma.boot.autoconfigure.resource;

import io.rdma.boot.autoconfigure.resource.DevicePlan.CompletionQueuePlan;
import io.rdma.boot.autoconfigure.resource.DevicePlan.FlowPlan;
import io.rdma.boot.autoconfigure.resource.DevicePlan.MemoryPoolPlan;
import io.rdma.boot.autoconfigure.resource.DevicePlan.ProtectionDomainPlan;
import io.rdma.boot.autoconfigure.resource.DevicePlan.QueuePairPlan;
import io.rdma.boot.autoconfigure.resource.DevicePlan.SharedReceiveQueuePlan;
import io.rdma.spring.resource.ConnectionPlan;
import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.DeviceAttributes;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.Unsigned64;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Checks a device's plan against what {@code ibv_query_device} and {@code ibv_query_port}
 * report, right after the device is opened and before anything is created on it, so a
 * configuration the device cannot honour fails with the property and the limit instead of
 * with an errno half-way through creation.
 */
final class DeviceLimits {

    /**
     * A connection on this device that creates a queue pair per peer from a prototype: a listener
     * (up to {@code max-connections} peers) or a service connection (up to {@code max-instances}).
     */
    private record PrototypePeers(String name, String property, int peers) {
    }

    private final DevicePlan device;
    private final List<PrototypePeers> prototypePeers = new ArrayList<>();
    private final DeviceContext context;
    private final DeviceAttributes limits;

    private DeviceLimits(DevicePlan device, ConnectionPlan connections, DeviceContext context) {
        this.device = device;
        connections.listeners().stream()
                .filter(listener -> listener.device().equals(device.name()) && listener.queuePairPrototype() != null)
                .forEach(listener -> prototypePeers.add(new PrototypePeers(listener.name(),
                        listener.property() + ".max-connections", listener.maxConnections())));
        connections.services().stream()
                .filter(service -> service.device().equals(device.name()) && service.queuePairPrototype() != null)
                .forEach(service -> prototypePeers.add(new PrototypePeers(service.name(),
                        service.property() + ".max-instances", service.maxInstances())));
        this.context = context;
        this.limits = context.queryDevice();
    }

    /** Checks {@code device}'s plan, and the queue pairs its {@code connections} may create, against its limits. */
    static void verify(DevicePlan device, ConnectionPlan connections, DeviceContext context) {
        new DeviceLimits(device, connections, context).verify();
    }

    private void verify() {
        port(device.port(), device.property() + ".port");
        count(device.completionQueues().size(), limits.maxCq(), device.property() + ".completion-queues", "max_cq");
        count(device.protectionDomains().size(), limits.maxPd(), device.property() + ".protection-domains", "max_pd");
        queuePairCount();
        for (CompletionQueuePlan cq : device.completionQueues()) {
            atMost(cq.entries(), limits.maxCqe(), cq.property() + ".entries", "max_cqe");
            if (cq.timestamps() && !limits.completionTimestamps()) {
                throw new InvalidRdmaConfigurationException(cq.property() + ".timestamps", "device '"
                        + device.deviceName() + "' cannot timestamp completions", "Set timestamps to false.");
            }
        }
        if (!device.counters().isEmpty() && !limits.supportsCompletionCounters()) {
            throw new InvalidRdmaConfigurationException(device.counters().getFirst().property(), "device '"
                    + device.deviceName() + "' has no completion counters (max_comp_cntr is 0; ibv_create_comp_cntr"
                    + " fails with ENOTSUP)", "Remove the completion-counters of this device, or use a device that has them.");
        }
        count(device.counters().size(), limits.maxCompletionCounters(), device.property() + ".completion-counters",
                "max_comp_cntr");
        for (ProtectionDomainPlan pd : device.protectionDomains()) {
            count(pd.sharedReceiveQueues().size(), limits.maxSrq(), pd.property() + ".shared-receive-queues",
                    "max_srq");
            pd.memoryPools().forEach(this::memoryPool);
            pd.sharedReceiveQueues().forEach(this::sharedReceiveQueue);
            pd.queuePairs().forEach(this::queuePair);
            pd.queuePairPrototypes().forEach(this::queuePair);
        }
        device.flows().forEach(this::flow);
    }

    /**
     * The declared queue pairs, plus one per peer each prototype listener or service connection
     * may connect at once, within max_qp: beyond it ibv_create_qp fails when a peer connects (a
     * listener's peer sees an rdma_connect timeout), long after a start that looked fine.
     */
    private void queuePairCount() {
        count(device.queuePairs().size(), limits.maxQp(), device.property() + ".protection-domains.*.queue-pairs",
                "max_qp");
        long needed = device.queuePairs().size();
        for (PrototypePeers connection : prototypePeers) {
            needed += connection.peers();
            if (needed > Integer.toUnsignedLong(limits.maxQp())) {
                long room = Integer.toUnsignedLong(limits.maxQp()) - (needed - connection.peers());
                String key = connection.property().substring(connection.property().lastIndexOf('.') + 1);
                throw new InvalidRdmaConfigurationException(connection.property(), "device '"
                        + device.deviceName() + "' holds " + Integer.toUnsignedString(limits.maxQp()) + " queue pairs"
                        + " (max_qp), and its " + device.queuePairs().size() + " declared queue pairs plus a queue"
                        + " pair per peer of its connections " + prototypePeers.stream().map(PrototypePeers::name)
                        .toList() + " need up to " + needed + "; a peer beyond max_qp would fail to connect",
                        room > 0 ? "Set " + key + " to at most " + room + ", or declare fewer queue pairs."
                                : "Declare fewer queue pairs on device '" + device.name() + "', or use a device"
                                + " with a larger max_qp.");
            }
        }
    }

    private void memoryPool(MemoryPoolPlan pool) {
        long bytes = pool.bytes();
        // max_mr_size is a u64: rxe and mlx5 report 2^64-1, which a signed compare reads as -1.
        if (!limits.allowsRegionOf(bytes)) {
            String maxMrSize = Unsigned64.toString(limits.maxMrSize());
            throw new InvalidRdmaConfigurationException(pool.property(), "the pool registers " + bytes + " bytes ("
                    + pool.count() + " x " + pool.bufferSize() + "), above the device's max_mr_size of "
                    + maxMrSize, "Lower count or buffer-size so that count x buffer-size is at most "
                    + maxMrSize + " bytes.");
        }
    }

    private void sharedReceiveQueue(SharedReceiveQueuePlan srq) {
        atMost(srq.maxWr(), limits.maxSrqWr(), srq.property() + ".max-wr", "max_srq_wr");
        atMost(srq.maxSge(), limits.maxSrqSge(), srq.property() + ".max-sge", "max_srq_sge");
    }

    private void queuePair(QueuePairPlan qp) {
        atMost(qp.capabilities().maxSendWr(), limits.maxQpWr(), qp.property() + ".max-send-wr", "max_qp_wr");
        atMost(qp.capabilities().maxRecvWr(), limits.maxQpWr(), qp.property() + ".max-recv-wr", "max_qp_wr");
        atMost(qp.capabilities().maxSendSge(), limits.maxSge(), qp.property() + ".max-send-sge", "max_sge");
        atMost(qp.capabilities().maxRecvSge(), limits.maxSge(), qp.property() + ".max-recv-sge", "max_sge");
        atMost(qp.capabilities().maxInlineData(), limits.maxInlineData(), qp.property() + ".max-inline-data",
                "inline data limit");
        port(qp.port(), qp.property() + ".port");
        Set<CompletionCounterOp> countable = limits.supportedCompletionCounterOps();
        qp.counters().forEach((counter, ops) -> {
            for (CompletionCounterOp op : ops) {
                if (!countable.contains(op)) {
                    throw new InvalidRdmaConfigurationException(qp.property() + ".completion-counters." + counter,
                            "device '" + device.deviceName() + "' cannot count " + ConfiguredNames.nameOf(op)
                                    + " (ibv_qp_attach_comp_cntr fails with ENOTSUP)",
                            "Count only op kinds the device supports: "
                                    + countable.stream().map(ConfiguredNames::nameOf).sorted().toList() + ".");
                }
            }
        });
    }

    private void flow(FlowPlan flow) {
        port(flow.spec().port(), flow.property() + ".port");
        LinkLayer linkLayer = context.queryPort(flow.spec().port()).linkLayer();
        if (linkLayer != LinkLayer.ETHERNET) {
            throw new InvalidRdmaConfigurationException(flow.property() + ".port", "port " + flow.spec().port()
                    + " of device '" + device.deviceName() + "' is " + linkLayer + ", and flows steer Ethernet packets"
                    + " (ibv_create_flow fails with EINVAL)", "Declare flows on an Ethernet (RoCE) port.");
        }
        if (!flow.counters().isEmpty() && !limits.flowCounters()) {
            throw new InvalidRdmaConfigurationException(flow.property() + ".counters", "device '" + device.deviceName()
                    + "' has no flow counters (ibv_create_counters fails with EOPNOTSUPP)",
                    "Remove the flow's counters, or use a device with flow counters.");
        }
    }

    private void port(int port, String property) {
        if (port > limits.physicalPortCount()) {
            throw new InvalidRdmaConfigurationException(property, "device '" + device.deviceName() + "' has no port "
                    + port, "Name a port from 1 to " + limits.physicalPortCount() + ".");
        }
    }

    // The limits are u32 in ibv_device_attr: a device reporting 2^32-1 must read as large, not as -1.
    private void count(int declared, int limit, String property, String limitName) {
        if (Integer.compareUnsigned(declared, limit) > 0) {
            throw new InvalidRdmaConfigurationException(property, declared + " are declared, above the device's "
                    + limitName + " of " + Integer.toUnsignedString(limit), "Declare at most "
                    + Integer.toUnsignedString(limit) + ".");
        }
    }

    private void atMost(int value, int limit, String property, String limitName) {
        if (Integer.compareUnsigned(value, limit) > 0) {
            throw new InvalidRdmaConfigurationException(property, "the value " + value + " is above device '"
                    + device.deviceName() + "' " + limitName + " of " + Integer.toUnsignedString(limit),
                    "Set it to at most " + Integer.toUnsignedString(limit) + ".");
        }
    }
}

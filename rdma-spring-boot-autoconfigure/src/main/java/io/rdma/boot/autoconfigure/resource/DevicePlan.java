package io.rdma.boot.autoconfigure.resource;

import io.rdma.spring.resource.CompletionIdle;
import io.rdma.spring.resource.CompletionMode;
import io.rdma.spring.resource.IdleBackoff;
import io.rdma.spring.resource.SendTimeout;
import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.CounterDescription;
import io.rdma.verbs.api.FlowSpec;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReliabilitySettings;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * One configured device after its properties were read and checked: every name resolved,
 * every default applied, every enum parsed. {@link DeviceLimits} checks it against what the
 * opened device reports; {@link ResourceDeclarations} turns it into beans.
 *
 * @param name the key: the bean's name, and the device its resources and connections name
 * @param deviceName the name the provider lists the device by (ibv_devices), which it is opened by
 * @param deviceNameProperty the property that gives {@code deviceName}: {@code name} where set, else the key's
 * @param gidIndex null when not configured: the preflight chooses one per port once the device
 *                 is open ({@link #withGidIndexes}), before {@link DeviceLimits} sees the plan
 */
record DevicePlan(String name, String property, String deviceName, String deviceNameProperty, int port,
                  @Nullable Integer gidIndex, List<CompletionQueuePlan> completionQueues, List<CounterPlan> counters,
                  List<ProtectionDomainPlan> protectionDomains, List<FlowPlan> flows) {

    /** This plan with every unset GID index (the device's, its QPs' and prototypes') set to the one chosen for its port. */
    DevicePlan withGidIndexes(Map<Integer, Integer> chosenByPort) {
        List<ProtectionDomainPlan> pds = protectionDomains.stream().map(pd -> new ProtectionDomainPlan(pd.name(),
                pd.property(), pd.memoryPools(), pd.sharedReceiveQueues(),
                pd.queuePairs().stream().map(qp -> qp.withGidIndexes(chosenByPort)).toList(),
                pd.queuePairPrototypes().stream().map(qp -> qp.withGidIndexes(chosenByPort)).toList())).toList();
        return new DevicePlan(name, property, deviceName, deviceNameProperty, port,
                gidIndex != null ? gidIndex : chosenByPort.get(port), completionQueues, counters, pds, flows);
    }

    /** Bytes the device's memory pools pin: each is one page-aligned registration, so whole pages count. */
    long pinnedBytes() {
        return protectionDomains.stream().flatMap(pd -> pd.memoryPools().stream())
                .mapToLong(pool -> Math.ceilDiv(pool.bytes(), ProtectionDomain.PAGE_SIZE)
                        * ProtectionDomain.PAGE_SIZE).sum();
    }

    List<QueuePairPlan> queuePairs() {
        return protectionDomains.stream().flatMap(pd -> pd.queuePairs().stream()).toList();
    }

    List<QueuePairPlan> queuePairPrototypes() {
        return protectionDomains.stream().flatMap(pd -> pd.queuePairPrototypes().stream()).toList();
    }

    /** A CQ; {@code channelName} is set when the mode sleeps on a completion channel of its own. */
    record CompletionQueuePlan(String name, String property, int entries, CompletionMode mode, Duration pollWindow,
                               int batchSize, CompletionIdle idle, IdleBackoff backoff, int completionVector,
                               boolean timestamps, @Nullable String channelName) {
    }

    /** A completion counter; {@code externalMemory} is null for provider memory. */
    record CounterPlan(String name, String property, @Nullable Path externalMemory) {
    }

    /** A PD; its {@code queuePairPrototypes} are QPs a listener creates per accepted peer, not beans. */
    record ProtectionDomainPlan(String name, String property, List<MemoryPoolPlan> memoryPools,
                                List<SharedReceiveQueuePlan> sharedReceiveQueues, List<QueuePairPlan> queuePairs,
                                List<QueuePairPlan> queuePairPrototypes) {
    }

    record MemoryPoolPlan(String name, String property, String protectionDomain, int bufferSize, int count,
                          Set<AccessFlag> access) {

        /** The size of the pool's one registration: count x buffer-size. */
        long bytes() {
            return (long) bufferSize * count;
        }
    }

    record SharedReceiveQueuePlan(String name, String property, String protectionDomain, int maxWr, int maxSge,
                                  int limit) {
    }

    /**
     * A QP with its references resolved to the names of beans on the same device.
     *
     * @param gidIndex null when neither the QP nor its device configures one (see {@link DevicePlan#gidIndex})
     * @param reliability what a connection sets in place of the connection manager's (the device's
     *                    defaults applied; none for uc and ud)
     */
    record QueuePairPlan(String name, String property, String protectionDomain, QueuePairType type, String sendCq,
                         String recvCq, @Nullable String srq, @Nullable String memoryPool,
                         QueuePairCapabilities capabilities, int port, @Nullable Integer gidIndex, boolean signalAll,
                         Map<String, Set<CompletionCounterOp>> counters, SendTimeout sendTimeout,
                         ReliabilitySettings reliability) {

        QueuePairPlan withGidIndexes(Map<Integer, Integer> chosenByPort) {
            return gidIndex != null ? this : new QueuePairPlan(name, property, protectionDomain, type, sendCq, recvCq,
                    srq, memoryPool, capabilities, port, chosenByPort.get(port), signalAll, counters, sendTimeout,
                    reliability);
        }
    }

    /** A flow; {@code countersName} is set when it feeds flow counters of its own. */
    record FlowPlan(String name, String property, String queuePair, FlowSpec spec, List<CounterDescription> counters,
                    @Nullable String countersName) {
    }
}

package io.rdma.boot.autoconfigure.fabric;

import io.rdma.boot.autoconfigure.RdmaProperties.CompletionMode;
import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.CounterDescription;
import io.rdma.verbs.api.FlowSpec;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairType;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One configured device after its properties were read and checked: every name resolved,
 * every default applied, every enum parsed. {@link DeviceLimits} checks it against what the
 * opened device reports; {@link ResourceDeclarations} turns it into beans.
 */
record DevicePlan(String name, String property, int port, int gidIndex, List<CompletionQueuePlan> completionQueues,
                  List<CounterPlan> counters, List<ProtectionDomainPlan> protectionDomains, List<FlowPlan> flows) {

    List<QueuePairPlan> queuePairs() {
        return protectionDomains.stream().flatMap(pd -> pd.queuePairs().stream()).toList();
    }

    /** A CQ; {@code channelName} is set when the mode sleeps on a completion channel of its own. */
    record CompletionQueuePlan(String name, String property, int entries, CompletionMode mode, Duration pollWindow,
                               int batchSize, int completionVector, boolean timestamps, String channelName) {
    }

    /** A completion counter; {@code externalMemory} is null for provider memory. */
    record CounterPlan(String name, String property, Path externalMemory) {
    }

    record ProtectionDomainPlan(String name, String property, List<MemoryPoolPlan> memoryPools,
                                List<SharedReceiveQueuePlan> sharedReceiveQueues, List<QueuePairPlan> queuePairs) {
    }

    record MemoryPoolPlan(String name, String property, String protectionDomain, int bufferSize, int count,
                          Set<AccessFlag> access) {
    }

    record SharedReceiveQueuePlan(String name, String property, String protectionDomain, int maxWr, int maxSge,
                                  int limit) {
    }

    /** A QP with its references resolved to the names of beans on the same device. */
    record QueuePairPlan(String name, String property, String protectionDomain, QueuePairType type, String sendCq,
                         String recvCq, String srq, String memoryPool, QueuePairCapabilities capabilities, int port,
                         int gidIndex, boolean signalAll, Map<String, Set<CompletionCounterOp>> counters) {
    }

    /** A flow; {@code countersName} is set when it feeds flow counters of its own. */
    record FlowPlan(String name, String property, String queuePair, FlowSpec spec, List<CounterDescription> counters,
                    String countersName) {
    }
}

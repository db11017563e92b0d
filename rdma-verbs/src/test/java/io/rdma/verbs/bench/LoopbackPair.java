package io.rdma.verbs.bench;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.CompletionBatch;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.ConnectOptions;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.Verbs;

import java.util.EnumSet;
import java.util.Locale;

/**
 * Two RC QPs connected to each other, each with its own CQ and a registered buffer: the
 * fixture every benchmark measures. The provider is {@code -Drdma.provider} (simulated by
 * default), so the same benchmark runs on a real device.
 */
final class LoopbackPair implements AutoCloseable {

    final Verbs verbs;
    final DeviceContext context;
    final ProtectionDomain pd;
    final CompletionQueue senderCq;
    final CompletionQueue receiverCq;
    final QueuePair sender;
    final QueuePair receiver;
    final MemoryRegion senderMemory;
    final MemoryRegion receiverMemory;
    final CompletionBatch senderCompletions = new CompletionBatch(64);
    final CompletionBatch receiverCompletions = new CompletionBatch(64);

    LoopbackPair(int queueDepth, long bufferBytes) {
        ProviderKind kind = ProviderKind.valueOf(System.getProperty("rdma.provider", "simulated")
                .toUpperCase(Locale.ROOT));
        verbs = Verbs.open(kind);
        context = verbs.devices().getFirst().open();
        pd = context.allocateProtectionDomain();
        senderCq = context.createCompletionQueue(queueDepth * 2);
        receiverCq = context.createCompletionQueue(queueDepth * 2);
        QueuePairCapabilities caps = QueuePairCapabilities.of(queueDepth, queueDepth).withInlineData(64);
        sender = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, senderCq, caps));
        receiver = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, receiverCq, caps));
        EnumSet<AccessFlag> access = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ);
        senderMemory = pd.allocateMemory(bufferBytes, access);
        receiverMemory = pd.allocateMemory(bufferBytes, access);
        int gidIndex = Integer.getInteger("rdma-test.gid-index", 0);
        ConnectOptions options = ConnectOptions.builder().gidIndex(gidIndex).build();
        sender.connect(receiver.localEndpoint(options), options);
        receiver.connect(sender.localEndpoint(options), options);
    }

    /** Polls {@code cq} until {@code expected} completions arrived; fails on any error completion. */
    static void drain(CompletionQueue cq, CompletionBatch batch, int expected) {
        int seen = 0;
        while (seen < expected) {
            int polled = cq.poll(batch);
            for (int i = 0; i < polled; i++) {
                if (!batch.get(i).isSuccess()) {
                    throw new IllegalStateException("benchmark completion failed: " + batch.get(i));
                }
            }
            seen += polled;
        }
    }

    @Override
    public void close() {
        verbs.close();
    }
}

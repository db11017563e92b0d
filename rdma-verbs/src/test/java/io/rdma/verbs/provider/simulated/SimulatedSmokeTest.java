package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.*;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;

class SimulatedSmokeTest {

    @Test
    void itsDevicesCarryTheInfiniBandTransport() {
        try (Verbs verbs = Verbs.open(ProviderKind.SIMULATED)) {
            assertThat(verbs.devices()).isNotEmpty()
                    .allSatisfy(device -> assertThat(device.transportType()).isEqualTo(TransportType.INFINIBAND));
        }
    }

    @Test
    void sendReceiveWriteRead() throws Exception {
        try (Verbs verbs = Verbs.open(ProviderKind.SIMULATED)) {
            DeviceContext context = verbs.devices().getFirst().open();
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(64);
            EnumSet<AccessFlag> all = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ,
                    AccessFlag.REMOTE_ATOMIC);
            MemoryRegion a = pd.allocateMemory(4096, all);
            MemoryRegion b = pd.allocateMemory(4096, all);
            QueuePair qa = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, cq, QueuePairCapabilities.of(16, 16)));
            QueuePair qb = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, cq, QueuePairCapabilities.of(16, 16)));
            ConnectOptions options = ConnectOptions.defaults();
            qa.connect(qb.localEndpoint(ConnectOptions.defaults()), options);
            qb.connect(qa.localEndpoint(ConnectOptions.defaults()), options);
            a.segment().setString(0, "hello rdma");
            qb.postReceive(new ReceiveWorkRequest().wrId(7).addSge(b, 0, 4096));
            qa.postSend(new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED)).addSge(a, 0, 11));
            CompletionBatch batch = new CompletionBatch(8);
            assertThat(cq.poll(batch)).isEqualTo(2);
            assertThat(batch.get(0).opcode()).isEqualTo(CompletionOpcode.RECV);
            assertThat(batch.get(0).byteLength()).isEqualTo(11);
            assertThat(b.segment().getString(0)).isEqualTo("hello rdma");
            a.segment().set(ValueLayout.JAVA_LONG, 104, 42L);
            qa.postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED))
                    .opcode(SendOpcode.RDMA_WRITE).addSge(a, 104, 8).remote(b.remote(200, 8)));
            assertThat(cq.poll(batch)).isEqualTo(1);
            assertThat(b.segment().get(ValueLayout.JAVA_LONG, 200)).isEqualTo(42L);
            qa.postSend(new SendWorkRequest().wrId(3).flags(EnumSet.of(SendFlag.SIGNALED))
                    .opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).addSge(a, 8, 8).remote(b.remote(200, 8)).atomic(8, 0));
            assertThat(cq.poll(batch)).isEqualTo(1);
            assertThat(batch.get(0).status()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(a.segment().get(ValueLayout.JAVA_LONG, 8)).isEqualTo(42L);
            assertThat(b.segment().get(ValueLayout.JAVA_LONG, 200)).isEqualTo(50L);
        }
    }
}

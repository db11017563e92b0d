package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.CompletionBatch;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.ConnectOptions;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.Mtu;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.Verbs;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two devices whose ports have different MTUs, one RC QP on each, both with the sender's larger
 * path MTU: a packet longer than the receiving port's MTU cannot cross the link and is dropped,
 * so the requester times out (verbs manual §13.2: RETRY_EXC_ERR when the MTU is not consistent). Two
 * devices of different MTUs need a second host on hardware, hence not a loopback test.
 */
class LinkMtuTest {

    /** ~1 ms ACK timeout and one retry, so that running out of retries takes no noticeable time. */
    private static final ConnectOptions SHORT_RETRIES = ConnectOptions.builder().pathMtu(Mtu.MTU_4096)
            .retries(8, 1, 7, 12).build();

    @Test
    void packetAboveTheReceivingPortsMtuIsDroppedAndRetriesRunOut() {
        List<DeviceSpec> specs = List.of(DeviceSpec.named("wide").mtu(Mtu.MTU_4096).build(),
                DeviceSpec.named("narrow").mtu(Mtu.MTU_1024).build());
        try (Verbs verbs = Verbs.open(ProviderKind.SIMULATED, specs);
             DeviceContext wide = verbs.device("wide").open();
             DeviceContext narrow = verbs.device("narrow").open()) {
            ProtectionDomain widePd = wide.allocateProtectionDomain();
            ProtectionDomain narrowPd = narrow.allocateProtectionDomain();
            CompletionQueue sendCq = wide.createCompletionQueue(8);
            CompletionQueue receiveCq = narrow.createCompletionQueue(8);
            QueuePairCapabilities caps = QueuePairCapabilities.of(4, 4);
            QueuePair requester = widePd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, sendCq, caps));
            QueuePair responder = narrowPd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, receiveCq, caps));
            requester.connect(responder.localEndpoint(ConnectOptions.defaults()), SHORT_RETRIES);
            responder.connect(requester.localEndpoint(ConnectOptions.defaults()), SHORT_RETRIES.toBuilder()
                    .pathMtu(Mtu.MTU_1024).build());
            MemoryRegion source = widePd.allocateMemory(8192, EnumSet.of(AccessFlag.LOCAL_WRITE));
            MemoryRegion target = narrowPd.allocateMemory(8192, EnumSet.of(AccessFlag.LOCAL_WRITE));
            responder.postReceive(new ReceiveWorkRequest().wrId(1).addSge(target, 0, 8192));

            requester.postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED))
                    .addSge(source, 0, 2048));

            CompletionBatch batch = new CompletionBatch(1);
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (sendCq.poll(batch) == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(batch.get(0).status()).isEqualTo(CompletionStatus.RETRY_EXC_ERR);
            assertThat(requester.state()).isEqualTo(QueuePairState.ERR);
            assertThat(responder.state()).as("the responder never saw the packet").isEqualTo(QueuePairState.RTS);
        }
    }
}

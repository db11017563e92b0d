package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.AsyncEventType;
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
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.Verbs;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A QP failed by the fabric is flushed on the fabric's event thread. An application that
 * resets and reconnects it before that thread gets there must keep what it posted since.
 */
class FabricFaultRecoveryTest {

    @Test
    void aLateFlushSparesAQueuePairThatWasResetAndReconnected() throws Exception {
        try (Verbs verbs = Verbs.open(ProviderKind.SIMULATED)) {
            DeviceContext context = verbs.devices().getFirst().open();
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(64);
            QueuePairCapabilities caps = QueuePairCapabilities.of(8, 8);
            QueuePair failing = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, cq, caps));
            QueuePair peer = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, cq, caps));
            MemoryRegion memory = pd.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE));
            ConnectOptions options = ConnectOptions.defaults();
            failing.connect(peer.localEndpoint(ConnectOptions.defaults()), options);
            peer.connect(failing.localEndpoint(ConnectOptions.defaults()), options);
            CountDownLatch eventThreadHeld = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            context.addAsyncEventListener(event -> {
                if (event.type() == AsyncEventType.QP_FATAL) {
                    eventThreadHeld.countDown();
                    awaitQuietly(release);
                }
            });

            verbs.extension(FabricControl.class).orElseThrow().failQueuePair(context.deviceName(), failing.qpNumber());
            assertThat(eventThreadHeld.await(10, TimeUnit.SECONDS)).isTrue();
            failing.reset();
            failing.connect(peer.localEndpoint(ConnectOptions.defaults()), options);
            failing.postReceive(new ReceiveWorkRequest().wrId(9).addSge(memory, 0, 64));
            release.countDown();
            CountDownLatch eventThreadDrained = new CountDownLatch(1);
            context.addAsyncEventListener(event -> eventThreadDrained.countDown());
            verbs.extension(FabricControl.class).orElseThrow().failQueuePair(context.deviceName(), peer.qpNumber());
            assertThat(eventThreadDrained.await(10, TimeUnit.SECONDS)).isTrue();

            CompletionBatch batch = new CompletionBatch(16);
            int polled = cq.poll(batch);
            for (int i = 0; i < polled; i++) {
                assertThat(batch.get(i).wrId()).as("the receive posted after the reconnect is not flushed")
                        .isNotEqualTo(9);
            }
            assertThat(failing.state()).isEqualTo(QueuePairState.RTS);
            context.close();
            assertThat(verbs.liveObjects().values()).containsOnly(0L);
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

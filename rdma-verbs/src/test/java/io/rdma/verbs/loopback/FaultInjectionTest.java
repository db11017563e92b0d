package io.rdma.verbs.loopback;

import io.rdma.verbs.api.AsyncEvent;
import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.Connection;
import io.rdma.verbs.api.ConnectionListener;
import io.rdma.verbs.api.ConnectionManager;
import io.rdma.verbs.api.ConnectionRequest;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.provider.simulated.FabricControl;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Faults a real fabric produces but a test cannot provoke on demand: ports going down, lost
 * packets, failing QPs and devices out of resources. Needs the simulated fabric's {@link FabricControl}, so these
 * run on the simulated fabric only.
 */
class FaultInjectionTest {

    /** The shortest useful ACK timeout (4.096 µs × 2^1), so exhausting retries takes no noticeable time. */
    private static final int SHORT_TIMEOUT = 1;

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    private FabricControl control;
    private MemoryRegion source;
    private MemoryRegion target;

    @BeforeEach
    void requireControl() {
        control = fabric.fabricControl();
        source = fabric.region(4096);
        target = fabric.region(4096);
        Payloads.fill(source.segment(), 0, 4096, 90);
    }

    @Test
    void portDownExhaustsRetriesAndRaisesPortEvents() throws InterruptedException {
        Loopback loopback = fabric.pair(QueuePairType.RC)
                .connect(fabric.connectOptions().toBuilder().retries(SHORT_TIMEOUT, 2, 7, 1).build());
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(target, 0, 4096));

        control.setPortState(fabric.deviceName(), fabric.port(), PortState.DOWN);
        AsyncEvent down = fabric.awaitEvent(AsyncEventType.PORT_ERR, e -> e.portNumber() == fabric.port());
        assertThat(down.resource()).isNull();
        assertThat(fabric.portAttributes().state()).isEqualTo(PortState.DOWN);
        loopback.requester().postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(source, 0, 64));

        Completion failed = Completions.awaitOne(loopback.requesterCq());
        assertThat(failed.status()).isEqualTo(CompletionStatus.RETRY_EXC_ERR);
        assertThat(loopback.requester().state()).isEqualTo(QueuePairState.ERR);

        control.setPortState(fabric.deviceName(), fabric.port(), PortState.ACTIVE);
        fabric.awaitEvent(AsyncEventType.PORT_ACTIVE, e -> e.portNumber() == fabric.port());
        assertThat(fabric.portAttributes().isActive()).isTrue();
    }

    /**
     * No connection request leaves while the device has no ACTIVE port: rdma_connect fails at once
     * with ENETDOWN (on rxe a request sent then breaks the kernel's connection manager for good),
     * the listener gets nothing, and once the port is back a connect goes through.
     */
    @Test
    void aConnectWhileNoPortIsActiveFailsAtOnceAndGoesThroughOnceThePortIsBack() throws Exception {
        ConnectionManager cm = ConnectionManager.of(fabric.context());
        QueuePair serverQp = unconnectedQueuePair();
        QueuePair clientQp = unconnectedQueuePair();
        try (ConnectionListener listener = cm.listen(new InetSocketAddress("0.0.0.0", 0), 4);
             ExecutorService server = Executors.newSingleThreadExecutor()) {
            InetSocketAddress address = loopbackAddressOf(listener);
            control.setPortState(fabric.deviceName(), fabric.port(), PortState.DOWN);

            long started = System.nanoTime();
            VerbsErrors.expectFailure("rdma_connect", Errno.ENETDOWN, () -> cm.connect(address, clientQp, new byte[0],
                    Duration.ofSeconds(30)));
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("failed at once, not after the timeout")
                    .isLessThan(Duration.ofSeconds(30));
            assertThat(clientQp.state()).isEqualTo(QueuePairState.RESET);
            assertThat(listener.nextRequest(Duration.ofMillis(100))).as("no request left").isEmpty();

            control.setPortState(fabric.deviceName(), fabric.port(), PortState.ACTIVE);
            Future<Optional<Connection>> accepted = server.submit(() -> listener.accept(serverQp, new byte[0],
                    LoopbackFabric.WAIT));
            try (Connection client = cm.connect(address, clientQp, new byte[0], LoopbackFabric.WAIT);
                 Connection serverSide = accepted.get(20, TimeUnit.SECONDS).orElseThrow()) {
                assertThat(clientQp.state()).isEqualTo(QueuePairState.RTS);
                assertThat(serverSide.queuePair().state()).isEqualTo(QueuePairState.RTS);
            }
        }
    }

    /**
     * A connection closed while no port is ACTIVE is closed at once, but its disconnect is held:
     * nothing leaves while the port is down (on rxe a disconnect sent then leaves the device's
     * connection manager deaf), the provider counts the held id, and once the port is ACTIVE again
     * the disconnect goes out and the peer hears of it. Before the hold the peer never heard: the
     * disconnect was lost with the link.
     */
    @Test
    void aDisconnectWhileNoPortIsActiveIsHeldAndReachesThePeerOnceThePortIsBack() throws Exception {
        ConnectionManager cm = ConnectionManager.of(fabric.context());
        QueuePair serverQp = unconnectedQueuePair();
        QueuePair clientQp = unconnectedQueuePair();
        try (ConnectionListener listener = cm.listen(new InetSocketAddress("0.0.0.0", 0), 4);
             ExecutorService server = Executors.newSingleThreadExecutor()) {
            InetSocketAddress address = loopbackAddressOf(listener);
            Future<Optional<Connection>> accepted = server.submit(() -> listener.accept(serverQp, new byte[0],
                    LoopbackFabric.WAIT));
            Connection client = cm.connect(address, clientQp, new byte[0], LoopbackFabric.WAIT);
            try (Connection serverSide = accepted.get(20, TimeUnit.SECONDS).orElseThrow()) {
                CountDownLatch heard = new CountDownLatch(1);
                serverSide.onPeerDisconnect(connection -> heard.countDown());
                long connections = fabric.verbs().liveObjects().get(ResourceKind.CONNECTION);
                control.setPortState(fabric.deviceName(), fabric.port(), PortState.DOWN);
                fabric.awaitEvent(AsyncEventType.PORT_ERR, e -> e.portNumber() == fabric.port());

                client.close();

                assertThat(client.isClosed()).isTrue();
                assertThat(clientQp.state()).isEqualTo(QueuePairState.ERR);
                assertThat(heard.await(300, TimeUnit.MILLISECONDS)).as("nothing left while the port was down")
                        .isFalse();
                assertThat(fabric.verbs().liveObjects().get(ResourceKind.CONNECTION)).as("the held id")
                        .isEqualTo(connections);

                control.setPortState(fabric.deviceName(), fabric.port(), PortState.ACTIVE);

                assertThat(heard.await(10, TimeUnit.SECONDS)).as("the held disconnect reached the peer").isTrue();
                assertThat(fabric.verbs().liveObjects().get(ResourceKind.CONNECTION)).as("the id released")
                        .isEqualTo(connections - 1);
            }
        }
    }

    /**
     * A request rejected while no port is ACTIVE has its rejection held like a disconnect: the
     * client hears nothing while the port is down and is refused (ECONNREFUSED) once it is back,
     * well before its own timeout. Before the hold the simulated fabric refused it at once.
     */
    @Test
    void aRejectionWhileNoPortIsActiveIsHeldAndRefusesTheClientOnceThePortIsBack() throws Exception {
        ConnectionManager cm = ConnectionManager.of(fabric.context());
        QueuePair clientQp = unconnectedQueuePair();
        try (ConnectionListener listener = cm.listen(new InetSocketAddress("0.0.0.0", 0), 4);
             ExecutorService client = Executors.newSingleThreadExecutor()) {
            InetSocketAddress address = loopbackAddressOf(listener);
            Future<Connection> connecting = client.submit(() -> cm.connect(address, clientQp, new byte[0],
                    Duration.ofSeconds(60)));
            ConnectionRequest request = listener.nextRequest(LoopbackFabric.WAIT).orElseThrow();
            control.setPortState(fabric.deviceName(), fabric.port(), PortState.DOWN);
            fabric.awaitEvent(AsyncEventType.PORT_ERR, e -> e.portNumber() == fabric.port());

            request.reject();

            assertThatThrownBy(() -> connecting.get(300, TimeUnit.MILLISECONDS)).as("nothing left while the port "
                    + "was down").isInstanceOf(TimeoutException.class);
            control.setPortState(fabric.deviceName(), fabric.port(), PortState.ACTIVE);
            assertThatThrownBy(() -> connecting.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOfSatisfying(VerbsException.class, failure ->
                            VerbsErrors.assertFailure(failure, "rdma_connect", Errno.ECONNREFUSED));
        }
    }

    /**
     * A connect fails with ENETDOWN while no port is ACTIVE; {@code awaitActivePort} answers at once
     * while one is, waits out its timeout while none is, and returns as soon as one is ACTIVE again
     * (IBV_EVENT_PORT_ACTIVE), not at its timeout.
     */
    @Test
    void awaitingAnActivePortReturnsWhenThePortIsActiveAgain() throws Exception {
        ConnectionManager cm = ConnectionManager.of(fabric.context());
        assertThat(cm.awaitActivePort(Duration.ZERO)).as("ACTIVE: at once").isTrue();
        control.setPortState(fabric.deviceName(), fabric.port(), PortState.DOWN);
        fabric.awaitEvent(AsyncEventType.PORT_ERR, e -> e.portNumber() == fabric.port());
        assertThatThrownBy(() -> cm.connect(new InetSocketAddress("127.0.0.1", 7471), unconnectedQueuePair(),
                new byte[0], Duration.ofSeconds(5))).isInstanceOfSatisfying(VerbsException.class, failure ->
                VerbsErrors.assertFailure(failure, "rdma_connect", Errno.ENETDOWN));
        assertThat(cm.awaitActivePort(Duration.ofMillis(200))).as("DOWN: the timeout").isFalse();

        try (ExecutorService waiter = Executors.newSingleThreadExecutor()) {
            Future<Boolean> waiting = waiter.submit(() -> cm.awaitActivePort(Duration.ofSeconds(60)));
            assertThatThrownBy(() -> waiting.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
            control.setPortState(fabric.deviceName(), fabric.port(), PortState.ACTIVE);

            assertThat(waiting.get(10, TimeUnit.SECONDS)).as("woken by the event, not at its 60 s").isTrue();
        }
    }

    private QueuePair unconnectedQueuePair() {
        return fabric.queuePair(QueuePairType.RC, fabric.completionQueue(64), null, LoopbackFabric.DEFAULT_CAPABILITIES);
    }

    private static InetSocketAddress loopbackAddressOf(ConnectionListener listener) {
        return new InetSocketAddress("127.0.0.1", listener.localAddress().getPort());
    }

    @Test
    void reliableConnectionRetransmitsADroppedPacket() {
        Loopback loopback = fabric.pair(QueuePairType.RC)
                .connect(fabric.connectOptions().toBuilder().retries(SHORT_TIMEOUT, 7, 7, 1).build());
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(target, 0, 4096));

        control.dropPackets(fabric.deviceName(), fabric.port(), 1);
        loopback.requester().postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(source, 0, 3000));

        assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
        Completion received = Completions.awaitOne(loopback.responderCq());
        assertThat(received.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(received.byteLength()).isEqualTo(3000);
        Payloads.assertFilled(target.segment(), 0, 3000, 90);
    }

    @Test
    void reliableConnectionGivesUpAfterRetryCount() {
        Loopback loopback = fabric.pair(QueuePairType.RC)
                .connect(fabric.connectOptions().toBuilder().retries(SHORT_TIMEOUT, 2, 7, 1).build());
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(target, 0, 4096));

        control.dropPackets(fabric.deviceName(), fabric.port(), 1000);
        loopback.requester().postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(source, 0, 64));

        assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.RETRY_EXC_ERR);
        assertThat(loopback.requester().state()).isEqualTo(QueuePairState.ERR);
    }

    @Test
    void aLossProbabilityOutsideZeroToOneIsRefused() {
        assertThatThrownBy(() -> control.setLoss(fabric.deviceName(), fabric.port(), 1.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1.5");
    }

    @Test
    void unreliableConnectionLosesADroppedMessageSilently() {
        Loopback loopback = fabric.connectedPair(QueuePairType.UC);
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(target, 0, 4096));

        control.dropPackets(fabric.deviceName(), fabric.port(), 1);
        loopback.requester().postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(source, 0, 64));
        assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(Completions.pollNow(loopback.responderCq())).as("the lost message").isEmpty();

        loopback.requester().postSend(new SendWorkRequest().wrId(3).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(source, 0, 128));
        assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
        Completion received = Completions.awaitOne(loopback.responderCq());
        assertThat(received.wrId()).isEqualTo(1);
        assertThat(received.byteLength()).as("the next message, in the receive the lost one never used")
                .isEqualTo(128);
    }

    @Test
    void failedQueuePairGoesToErrorWithAFatalEvent() throws InterruptedException {
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(5).addSge(target, 0, 4096));

        control.failQueuePair(fabric.deviceName(), loopback.responder().qpNumber());

        AsyncEvent fatal = fabric.awaitEvent(AsyncEventType.QP_FATAL, e -> e.resource() == loopback.responder());
        assertThat(fatal.resource()).isSameAs(loopback.responder());
        assertThat(loopback.responder().state()).isEqualTo(QueuePairState.ERR);
        Completion flushed = Completions.awaitOne(loopback.responderCq());
        assertThat(flushed.wrId()).isEqualTo(5);
        assertThat(flushed.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
    }

    @Test
    void injectedVerbFailureFailsTheNextCallOnly() {
        var cq = fabric.completionQueue(16);
        fabric.pd();
        control.failNextVerb(fabric.deviceName(), "ibv_create_qp", Errno.ENOMEM);

        VerbsErrors.expectFailure("ibv_create_qp", Errno.ENOMEM, () -> fabric.queuePair(QueuePairType.RC, cq, null,
                LoopbackFabric.DEFAULT_CAPABILITIES));
        assertThat(fabric.verbs().liveObjects()).containsEntry(ResourceKind.QUEUE_PAIR, 0L);

        var qp = fabric.queuePair(QueuePairType.RC, cq, null, LoopbackFabric.DEFAULT_CAPABILITIES);
        assertThat(qp.state()).isEqualTo(QueuePairState.RESET);
        assertThat(fabric.verbs().liveObjects()).containsEntry(ResourceKind.QUEUE_PAIR, 1L);
    }
}

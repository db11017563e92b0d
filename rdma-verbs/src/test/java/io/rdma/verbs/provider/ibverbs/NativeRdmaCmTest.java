package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.CompletionBatch;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.Connection;
import io.rdma.verbs.api.ConnectionListener;
import io.rdma.verbs.api.ConnectionManager;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.api.WorkCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * rdma_cm on a real device: a listener and a client in one process on rxe0's address
 * ({@code rdma.cm.address}, default the Soft-RoCE guest's 10.77.0.1), private data both
 * ways, traffic over the connected QPs, and the failures a user meets first.
 */
class NativeRdmaCmTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private Verbs verbs;
    private DeviceContext context;
    private InetAddress address;
    private final ExecutorService server = Executors.newSingleThreadExecutor();

    @BeforeEach
    void open() throws Exception {
        assumeTrue(new NativeVerbsProvider().availability().deviceCount() > 0, "no native RDMA device");
        verbs = Verbs.open(ProviderKind.NATIVE);
        context = verbs.devices().getFirst().open();
        address = InetAddress.getByName(System.getProperty("rdma.cm.address", "10.77.0.1"));
    }

    @AfterEach
    void close() throws InterruptedException {
        server.shutdownNow();
        assertThat(server.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        if (verbs != null) {
            verbs.close();
            assertThat(verbs.liveObjects().values()).containsOnly(0L);
        }
    }

    private QueuePair newQueuePair(ProtectionDomain pd, CompletionQueue cq) {
        return pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, cq, QueuePairCapabilities.of(8, 8)));
    }

    @Test
    void listenAcceptConnectExchangePrivateDataAndTraffic() throws Exception {
        ProtectionDomain pd = context.allocateProtectionDomain();
        MemoryRegion region = pd.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
                AccessFlag.REMOTE_READ));
        CompletionQueue serverCq = context.createCompletionQueue(16);
        CompletionQueue clientCq = context.createCompletionQueue(16);
        QueuePair serverQp = newQueuePair(pd, serverCq);
        QueuePair clientQp = newQueuePair(pd, clientCq);
        ConnectionManager cm = ConnectionManager.of(context);

        try (ConnectionListener listener = cm.listen(new InetSocketAddress(address, 0), 4)) {
            assertThat(listener.localAddress().getPort()).isPositive();
            assertThat(listener.accept(serverQp, new byte[0], Duration.ofMillis(100))).as("no request yet").isEmpty();
            CompletableFuture<Optional<Connection>> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return listener.accept(serverQp, "welcome".getBytes(StandardCharsets.US_ASCII), WAIT);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, server);
            try (Connection client = cm.connect(listener.localAddress(), clientQp,
                    "hello".getBytes(StandardCharsets.US_ASCII), WAIT);
                 Connection served = accepted.get(WAIT.toSeconds(), TimeUnit.SECONDS).orElseThrow()) {
                assertThat(new String(client.peerPrivateData(), StandardCharsets.US_ASCII)).startsWith("welcome");
                assertThat(new String(served.peerPrivateData(), StandardCharsets.US_ASCII)).startsWith("hello");
                assertThat(clientQp.state()).isEqualTo(QueuePairState.RTS);
                assertThat(serverQp.state()).isEqualTo(QueuePairState.RTS);

                serverQp.postReceive(new ReceiveWorkRequest().wrId(1).addSge(region, 2048, 64));
                region.segment().setString(0, "over rdma_cm");
                clientQp.postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED))
                        .addSge(region, 0, 32));
                CompletionBatch batch = new CompletionBatch(1);
                WorkCompletion sent = awaitOne(clientCq, batch);
                assertThat(sent.status()).isEqualTo(CompletionStatus.SUCCESS);
                WorkCompletion received = awaitOne(serverCq, batch);
                assertThat(received.status()).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(region.segment().getString(2048)).isEqualTo("over rdma_cm");

                clientQp.postSend(new SendWorkRequest().wrId(3).flags(EnumSet.of(SendFlag.SIGNALED))
                        .opcode(SendOpcode.RDMA_WRITE).addSge(region, 0, 16)
                        .remote(region.remote(1024, 16)));
                assertThat(awaitOne(clientCq, batch).status()).isEqualTo(CompletionStatus.SUCCESS);
            }
            assertThat(clientQp.state()).isEqualTo(QueuePairState.ERR);
        }
    }

    @Test
    void connectingWhereNobodyListensIsRefused() {
        ProtectionDomain pd = context.allocateProtectionDomain();
        QueuePair qp = newQueuePair(pd, context.createCompletionQueue(16));
        ConnectionManager cm = ConnectionManager.of(context);
        assertThatThrownBy(() -> cm.connect(new InetSocketAddress(address, 1), qp, new byte[0], WAIT))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.verb()).isEqualTo("rdma_connect");
                    assertThat(e.errno()).isIn(Errno.ECONNREFUSED, Errno.ETIMEDOUT);
                });
    }

    @Test
    void anAddressNoRdmaDeviceReachesFailsAtAddressResolution() {
        ProtectionDomain pd = context.allocateProtectionDomain();
        QueuePair qp = newQueuePair(pd, context.createCompletionQueue(16));
        ConnectionManager cm = ConnectionManager.of(context);
        // TEST-NET-1 (RFC 5737): routed nowhere
        assertThatThrownBy(() -> cm.connect(new InetSocketAddress("192.0.2.1", 7471), qp, new byte[0],
                Duration.ofSeconds(5))).isInstanceOfSatisfying(VerbsException.class,
                        e -> assertThat(e.verb()).isIn("rdma_resolve_addr", "rdma_resolve_route"));
    }

    @Test
    void aQueuePairThatIsNotFreshIsRefusedBeforeAnythingIsSent() {
        ProtectionDomain pd = context.allocateProtectionDomain();
        QueuePair qp = newQueuePair(pd, context.createCompletionQueue(16));
        qp.toInit(io.rdma.verbs.api.ConnectOptions.defaults());
        assertThatThrownBy(() -> ConnectionManager.of(context).connect(new InetSocketAddress(address, 1), qp,
                new byte[0], WAIT)).isInstanceOfSatisfying(VerbsException.class,
                        e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
    }

    private static WorkCompletion awaitOne(CompletionQueue cq, CompletionBatch batch) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (cq.poll(batch) > 0) {
                return batch.get(0);
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion within " + WAIT);
    }
}

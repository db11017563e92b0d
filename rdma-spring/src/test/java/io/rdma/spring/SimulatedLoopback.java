package io.rdma.spring;

import io.rdma.spring.resource.CompletionMode;
import io.rdma.spring.resource.CompletionPolling;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionQueueOptions;
import io.rdma.verbs.api.ConnectOptions;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.Verbs;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * Two RC queue pairs of one simulated device connected to each other on port 1 (as rdma-verbs'
 * {@code LoopbackFabric} connects them): {@code client} and {@code server}, each with a memory
 * pool of its own, both completing into one completion queue that sleeps on its channel
 * ({@link CompletionMode#EVENT}), so that the tests spin no core. Declared as
 * {@link #resources() RdmaResources} in code, as a plain Spring application declares them.
 * Closing it closes the device list, and with it everything made on it.
 */
public final class SimulatedLoopback implements AutoCloseable {

    public static final String CLIENT = "client";
    public static final String SERVER = "server";
    public static final int BUFFER_SIZE = 512;
    public static final int BUFFERS = 128;
    public static final int MAX_RECV_WR = 32;

    private static final Set<AccessFlag> ALL_ACCESS = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    private final Verbs verbs;
    private final DeviceContext device;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final MemoryPool clientBuffers;
    private final MemoryPool serverBuffers;
    private final QueuePair client;
    private final QueuePair server;
    private final Duration sendTimeout;

    /** The pair with room for 64 outstanding sends each, whose sends wait up to 5 s for more. */
    public SimulatedLoopback() {
        this(64, Duration.ofSeconds(5));
    }

    public SimulatedLoopback(int maxSendWr, Duration sendTimeout) {
        this.sendTimeout = sendTimeout;
        verbs = Verbs.open(ProviderKind.SIMULATED);
        device = verbs.devices().getFirst().open();
        pd = device.allocateProtectionDomain();
        cq = device.createCompletionQueue(CompletionQueueOptions.of(4096).withChannel(device.createCompletionChannel()));
        clientBuffers = pd.createMemoryPool(BUFFER_SIZE, BUFFERS, ALL_ACCESS);
        serverBuffers = pd.createMemoryPool(BUFFER_SIZE, BUFFERS, ALL_ACCESS);
        QueuePairCapabilities capabilities = QueuePairCapabilities.of(maxSendWr, MAX_RECV_WR);
        client = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, cq, capabilities));
        server = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, cq, capabilities));
        connect(client, server);
    }

    /** Connects two RC queue pairs of one simulated device to each other on port 1, out of band. */
    public static void connect(QueuePair client, QueuePair server) {
        ConnectOptions clientEnd = ConnectOptions.builder().port(1).sendPsn(100).build();
        ConnectOptions serverEnd = ConnectOptions.builder().port(1).sendPsn(200).build();
        var clientEndpoint = client.localEndpoint(clientEnd);
        var serverEndpoint = server.localEndpoint(serverEnd);
        client.connect(serverEndpoint, clientEnd);
        server.connect(clientEndpoint, serverEnd);
    }

    /** The device, its completion queue, both pools and both queue pairs, declared under the names of the constants. */
    public RdmaResources resources() {
        return RdmaResources.builder(verbs)
                .device("sim0", device, 1)
                .completionQueue("cq0", cq, new CompletionPolling(CompletionMode.EVENT, Duration.ZERO, 16))
                .memoryPool("client-buffers", clientBuffers)
                .memoryPool("server-buffers", serverBuffers)
                .queuePair(CLIENT, client, "client-buffers", sendTimeout)
                .queuePair(SERVER, server, "server-buffers", sendTimeout)
                .drainTimeout(Duration.ofMillis(200))
                .build();
    }

    public Verbs verbs() {
        return verbs;
    }

    public DeviceContext device() {
        return device;
    }

    public ProtectionDomain protectionDomain() {
        return pd;
    }

    public CompletionQueue completionQueue() {
        return cq;
    }

    public MemoryPool clientBuffers() {
        return clientBuffers;
    }

    public MemoryPool serverBuffers() {
        return serverBuffers;
    }

    public QueuePair client() {
        return client;
    }

    public QueuePair server() {
        return server;
    }

    @Override
    public void close() {
        verbs.close();
    }
}

package io.rdma.verbs.loopback;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.AsyncEvent;
import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.ConnectOptions;
import io.rdma.verbs.api.Connection;
import io.rdma.verbs.api.ConnectionListener;
import io.rdma.verbs.api.ConnectionManager;
import io.rdma.verbs.api.DeviceAttributes;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.PortAttributes;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.SharedReceiveQueue;
import io.rdma.verbs.api.TransportType;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.provider.simulated.DeviceSpec;
import io.rdma.verbs.provider.simulated.FabricControl;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * One device context per test, on the provider the run selects, with QPs connected to each
 * other on the same port (rust-ibverbs' {@code tests/loopback.rs}): the suite needs no second
 * host, so it runs unchanged on the simulated fabric and on a Soft-RoCE device.
 *
 * <p>Selected by system properties: {@code rdma.provider} ({@code simulated} by default, or
 * {@code native}), {@code rdma-test.device} (the first device by default), {@code rdma-test.port} (1) and
 * {@code rdma-test.gid-index} (0 on an InfiniBand port, 1 on Ethernet, where RoCE v2 GIDs start on
 * Soft-RoCE, 0 on iWARP, whose port has that one GID). After every test it closes the context and
 * requires the provider to hold no object at all, so every test doubles as a leak check.
 *
 * <p>On an iWARP device ({@link TransportType#IWARP}, e.g. Soft-iWARP's {@code siw0}) an RC pair is
 * connected through rdma_cm, the only way an iWARP QP gets to RTS; what iWARP does not have (UC and
 * UD queue pairs, connect attributes rdma_cm does not carry) skips the test, saying why.
 *
 * <p>Register it per test instance: {@code @RegisterExtension final LoopbackFabric fabric = new LoopbackFabric();}
 */
public final class LoopbackFabric implements AfterEachCallback {

    /** Bound on every wait, only so that a lost completion or event fails instead of hanging. */
    public static final Duration WAIT = Duration.ofSeconds(10);

    /** Everything a loopback buffer may be used for: local writes, remote read, write and atomics. */
    public static final Set<AccessFlag> ALL_ACCESS = Set.copyOf(EnumSet.of(AccessFlag.LOCAL_WRITE,
            AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC));

    /** Queue sizes of {@link #connectedPair}: room for the bursts the tests post. */
    public static final QueuePairCapabilities DEFAULT_CAPABILITIES =
            QueuePairCapabilities.of(128, 128).withSge(4, 4).withInlineData(64);

    private static final int DEFAULT_CQ_ENTRIES = 512;
    private static final int REQUESTER_PSN = 100;
    private static final int RESPONDER_PSN = 200;

    private final ProviderKind provider = ProviderKind.valueOf(
            System.getProperty("rdma.provider", "simulated").toUpperCase(Locale.ROOT));
    private final BlockingQueue<AsyncEvent> arrivals = new LinkedBlockingQueue<>();
    private final List<AsyncEvent> seen = new ArrayList<>();
    private Verbs verbs;
    private DeviceContext context;
    private ProtectionDomain pd;
    private int port;
    private int gidIndex;

    public boolean isSimulated() {
        return provider == ProviderKind.SIMULATED;
    }

    /** Whether the device carries iWARP: RC only, connected through rdma_cm only. */
    public boolean isIwarp() {
        return context().device().transportType() == TransportType.IWARP;
    }

    /**
     * Skips the test on iWARP, where a QP reaches RTS only through rdma_cm, for a test that walks
     * QPs through {@code ibv_modify_qp} itself; {@code what} says what the test does that way.
     */
    public void assumeOutOfBandConnect(String what) {
        assumeFalse(isIwarp(), deviceName() + " is iWARP: a QP reaches RTS only through rdma_cm (the connection"
                + " manager hands it a TCP stream), so a test that " + what + " cannot run there");
    }

    /** The provider's device list, opened on first use with the default simulated device. */
    public Verbs verbs() {
        context();
        return verbs;
    }

    public DeviceContext context() {
        if (context == null) {
            open(List.of(), System.getProperty("rdma-test.device"));
        }
        return context;
    }

    /**
     * Opens a simulated device unlike the default one, for the few tests about a device that
     * lacks something. Call it first in the test. On a native provider the spec is ignored
     * and the configured device is used: the test must then {@code assume} what it needs of
     * the real device's reported attributes.
     */
    public DeviceContext openSpecialDevice(DeviceSpec spec) {
        if (context != null) {
            throw new IllegalStateException("openSpecialDevice must come before any other use of the fabric");
        }
        open(List.of(spec), isSimulated() ? spec.name() : System.getProperty("rdma-test.device"));
        return context;
    }

    private void open(List<DeviceSpec> specs, String deviceName) {
        verbs = Verbs.open(provider, specs);
        context = (deviceName == null ? verbs.devices().getFirst() : verbs.device(deviceName)).open();
        context.addAsyncEventListener(arrivals::add);
        port = Integer.getInteger("rdma-test.port", 1);
        String configuredGidIndex = System.getProperty("rdma-test.gid-index");
        gidIndex = configuredGidIndex != null ? Integer.parseInt(configuredGidIndex)
                : linkLayer() == LinkLayer.ETHERNET && !isIwarp() ? 1 : 0;
    }

    public int port() {
        context();
        return port;
    }

    public int gidIndex() {
        context();
        return gidIndex;
    }

    public DeviceAttributes deviceAttributes() {
        return context().queryDevice();
    }

    public PortAttributes portAttributes() {
        return context().queryPort(port());
    }

    public LinkLayer linkLayer() {
        return context().queryPort(port()).linkLayer();
    }

    public String deviceName() {
        return context().deviceName();
    }

    /** Fault injection, or a skipped test where the provider has none (native devices). */
    public FabricControl fabricControl() {
        var control = verbs().extension(FabricControl.class);
        assumeTrue(control.isPresent(), "fault injection needs the simulated fabric");
        return control.get();
    }

    /** One protection domain shared by the helpers of a test. */
    public ProtectionDomain pd() {
        if (pd == null || pd.isClosed()) {
            pd = context().allocateProtectionDomain();
        }
        return pd;
    }

    public CompletionQueue completionQueue(int entries) {
        return context().createCompletionQueue(entries);
    }

    /** {@code bytes} of fresh registered memory allowing every access. */
    public MemoryRegion region(long bytes) {
        return region(bytes, ALL_ACCESS);
    }

    public MemoryRegion region(long bytes, Set<AccessFlag> access) {
        return pd().allocateMemory(bytes, access);
    }

    /** Default connect settings for the configured port and GID index. */
    public ConnectOptions connectOptions() {
        return ConnectOptions.builder().port(port()).gidIndex(gidIndex()).build();
    }

    /** A QP of {@code type}; skips the test where the device has no such QPs (iWARP: RC only). */
    public QueuePair queuePair(QueuePairType type, CompletionQueue cq, SharedReceiveQueue srq,
                               QueuePairCapabilities capabilities) {
        assumeQueuePairType(type);
        QueuePairOptions options = QueuePairOptions.of(type, cq, capabilities);
        return pd().createQueuePair(srq == null ? options : options.withSrq(srq));
    }

    /** Two QPs in RESET, each with its own CQ, ready for attaching counters before {@link Loopback#connect}. */
    public Loopback pair(QueuePairType type) {
        return pair(type, DEFAULT_CAPABILITIES);
    }

    /** As {@link #pair(QueuePairType)}; each CQ holds every completion both queues can have outstanding (verbs manual §5.2). */
    public Loopback pair(QueuePairType type, QueuePairCapabilities capabilities) {
        int entries = Math.max(DEFAULT_CQ_ENTRIES, capabilities.maxSendWr() + capabilities.maxRecvWr());
        QueuePair requester = queuePair(type, completionQueue(entries), null, capabilities);
        QueuePair responder = queuePair(type, completionQueue(entries), null, capabilities);
        return new Loopback(this, requester, responder);
    }

    /** Skips the test on a device without {@code type} QPs: iWARP has RC only (no UC, UD or raw packet QPs). */
    public void assumeQueuePairType(QueuePairType type) {
        assumeTrue(type == QueuePairType.RC || !isIwarp(), deviceName() + " is iWARP, which has RC queue pairs only,"
                + " no " + type);
    }

    /**
     * The IPv4 address rdma_cm reaches the port by: that of the port's GID at index 1, the RoCE v2
     * GID that holds it on Soft-RoCE and on the simulated fabric, or on iWARP, whose GID is made from a MAC address, that of the
     * netdev the port runs over (sysfs {@code ports/N/gid_attrs/ndevs/0}).
     */
    public InetAddress portAddress() {
        try {
            if (isIwarp()) {
                Path netdev = Path.of("/sys/class/infiniband", deviceName(), "ports", String.valueOf(port()),
                        "gid_attrs/ndevs/0");
                NetworkInterface network = NetworkInterface.getByName(Files.readString(netdev).trim());
                return network.inetAddresses().filter(Inet4Address.class::isInstance).findFirst()
                        .orElseThrow(() -> new AssertionError(network + ", the netdev of " + deviceName()
                                + ", has no IPv4 address"));
            }
            long ip = context().queryGid(port(), 1).ipv4();
            return InetAddress.getByAddress(new byte[] {(byte) (ip >>> 24), (byte) (ip >>> 16), (byte) (ip >>> 8),
                    (byte) ip});
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Two QPs of {@code type} connected to each other with {@link #connectOptions()}. */
    public Loopback connectedPair(QueuePairType type) {
        return pair(type).connect(connectOptions());
    }

    /**
     * Walks both QPs to RTS towards each other (RC, UC) or to RTS on their own (UD, raw packet,
     * where each datagram names its destination).
     */
    public void connect(QueuePair requester, QueuePair responder, ConnectOptions options) {
        if (isIwarp()) {
            connectThroughConnectionManager(requester, responder, options);
            return;
        }
        ConnectOptions requesterOptions = options.toBuilder().sendPsn(REQUESTER_PSN).build();
        ConnectOptions responderOptions = options.toBuilder().sendPsn(RESPONDER_PSN).build();
        if (requester.type().isConnected()) {
            var requesterEnd = requester.localEndpoint(requesterOptions);
            var responderEnd = responder.localEndpoint(responderOptions);
            requester.connect(responderEnd, requesterOptions);
            responder.connect(requesterEnd, responderOptions);
        } else {
            requester.connect(null, requesterOptions);
            responder.connect(null, responderOptions);
        }
    }

    /**
     * The requester connects to a listener on the port's address, the responder accepts: each QP
     * gets an rdma_cm connection, which closes with it. rdma_cm sets the path MTU, PSNs and
     * responder depths itself, the access flags to remote read and write, and iWARP has no ACK
     * timeout, retry counts or RNR timer (TCP retransmits): a test that sets any of those skips.
     */
    private void connectThroughConnectionManager(QueuePair requester, QueuePair responder, ConnectOptions options) {
        assumeQueuePairType(requester.type());
        String unsupported = attributesRdmaCmDoesNotCarry(options);
        assumeTrue(unsupported.isEmpty(), deviceName() + " is iWARP: its QPs connect through rdma_cm, which does not"
                + " take the " + unsupported + " the test sets");
        ConnectionManager cm = ConnectionManager.of(context());
        try (ConnectionListener listener = cm.listen(new InetSocketAddress(portAddress(), 0), 1)) {
            CompletableFuture<Connection> accepted = new CompletableFuture<>();
            Thread.ofPlatform().name("loopback-accept").start(() -> {
                try {
                    accepted.complete(listener.accept(responder, new byte[0], WAIT)
                            .orElseThrow(() -> new AssertionError("no connection request within " + WAIT)));
                } catch (Throwable e) {
                    accepted.completeExceptionally(e);
                }
            });
            cm.connect(new InetSocketAddress(portAddress(), listener.localAddress().getPort()), requester, new byte[0],
                    WAIT);
            accepted.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while connecting " + requester + " to " + responder, e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException failure ? failure : new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("the accept of " + responder + " did not end within " + WAIT, e);
        }
    }

    /** The attributes {@code options} sets otherwise than {@link #connectOptions()}, which rdma_cm would not apply. */
    private String attributesRdmaCmDoesNotCarry(ConnectOptions options) {
        ConnectOptions defaults = connectOptions();
        List<String> differing = new ArrayList<>();
        if (!options.accessFlags().equals(defaults.accessFlags())) {
            differing.add("access flags " + options.accessFlags());
        }
        if (options.pathMtu() != defaults.pathMtu()) {
            differing.add("path MTU " + options.pathMtu());
        }
        if (options.timeout() != defaults.timeout() || options.retryCount() != defaults.retryCount()
                || options.rnrRetry() != defaults.rnrRetry() || options.minRnrTimer() != defaults.minRnrTimer()) {
            differing.add("ACK timeout, retry counts or RNR timer");
        }
        if (options.maxRdAtomic() != defaults.maxRdAtomic() || options.maxDestRdAtomic() != defaults.maxDestRdAtomic()) {
            differing.add("read/atomic depths");
        }
        return String.join(", ", differing);
    }

    /** The next async event of {@code type} satisfying {@code match}; fails after {@link #WAIT}. */
    public AsyncEvent awaitEvent(AsyncEventType type, Predicate<AsyncEvent> match) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            for (AsyncEvent event : seen) {
                if (event.type() == type && match.test(event)) {
                    seen.remove(event);
                    return event;
                }
            }
            AsyncEvent next = arrivals.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (next == null) {
                return fail("no async event " + type + " within " + WAIT + "; events seen: " + seen);
            }
            seen.add(next);
        }
    }

    /** Closes the context (and with it everything the test left open), then requires zero live objects. */
    @Override
    public void afterEach(ExtensionContext extensionContext) {
        if (verbs == null) {
            return;
        }
        try {
            context.close();
            Map<ResourceKind, Long> live = verbs.liveObjects();
            assertThat(live).as("objects the provider still holds after the context was closed")
                    .allSatisfy((kind, count) -> assertThat(count).as(kind.name()).isZero());
        } finally {
            verbs.close();
        }
    }
}

package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.AddressHandle;
import io.rdma.verbs.api.AddressVector;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.ConnectOptions;
import io.rdma.verbs.api.Connection;
import io.rdma.verbs.api.ConnectionListener;
import io.rdma.verbs.api.ConnectionManager;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.ProviderSettings;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.loopback.Completion;
import io.rdma.verbs.loopback.Completions;
import io.rdma.verbs.loopback.VerbsErrors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Several sessions on one {@link SharedFabric}, as several applications in one JVM (instances of
 * one service in an integration test) use it: each session is a machine of its own on one
 * network, so what rdma_cm and the verbs promise between machines holds between sessions, and
 * what belongs to a machine (device names, port numbers, its objects) stays with its session.
 */
class SharedFabricTest {

    /** What every instance of the service declares: the same device name on every host. */
    private static final DeviceSpec RXE0 = DeviceSpec.named("rxe0").linkLayer(LinkLayer.ETHERNET).build();
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int SERVICE_PORT = 7471;
    private static final int GRH_BYTES = 40;
    private static final EnumSet<AccessFlag> ALL_ACCESS = EnumSet.of(AccessFlag.LOCAL_WRITE,
            AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    private final List<Verbs> sessions = new ArrayList<>();
    private final ExecutorService acceptor = Executors.newCachedThreadPool();

    @AfterEach
    void closeEverySession() throws InterruptedException {
        acceptor.shutdownNow();
        assertThat(acceptor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        sessions.reversed().forEach(Verbs::close);
    }

    @Test
    void hostsThatNameTheirDevicesAlikeHaveAnAddressEach() {
        Host first = Host.on(open(new SharedFabric("addresses"), RXE0));
        Host second = Host.on(open(new SharedFabric("addresses"), RXE0));

        assertThat(first.context.deviceName()).isEqualTo(second.context.deviceName()).isEqualTo("rxe0");
        assertThat(first.roceGid()).isEqualTo(Gid.parse("::ffff:10.1.1.1"));
        assertThat(second.roceGid()).isEqualTo(Gid.parse("::ffff:10.1.1.2"));
        assertThat(first.context.queryGid(1, 0)).as("link-local GID").isNotEqualTo(second.context.queryGid(1, 0));
        assertThat(first.context.queryDevice().nodeGuid()).isNotEqualTo(second.context.queryDevice().nodeGuid());
    }

    @Test
    void infinibandHostsGetLidsAndGuidsOfTheirOwnAndTheFirstHasThoseOfALoneSession() {
        DeviceContext alone = open(null).devices().getFirst().open();
        DeviceContext first = open(new SharedFabric("infiniband")).devices().getFirst().open();
        DeviceContext second = open(new SharedFabric("infiniband")).devices().getFirst().open();

        assertThat(first.queryPort(1).lid()).isEqualTo(alone.queryPort(1).lid());
        assertThat(first.queryDevice().nodeGuid()).isEqualTo(alone.queryDevice().nodeGuid());
        assertThat(first.queryGid(1, 0)).isEqualTo(alone.queryGid(1, 0));
        assertThat(second.queryPort(1).lid()).isNotZero().isNotEqualTo(first.queryPort(1).lid());
        assertThat(second.queryDevice().nodeGuid()).isNotEqualTo(first.queryDevice().nodeGuid());
        assertThat(second.queryGid(1, 0)).isNotEqualTo(first.queryGid(1, 0));
    }

    @Test
    void aClientOnOneHostConnectsToAListenerOnAnotherAndMovesDataBothWays() throws Exception {
        Host server = Host.on(open(new SharedFabric("traffic"), RXE0));
        Host client = Host.on(open(new SharedFabric("traffic"), RXE0));
        QueuePair serverQp = server.freshQueuePair();
        QueuePair clientQp = client.freshQueuePair();
        MemoryRegion serverMemory = server.pd.allocateMemory(4096, ALL_ACCESS);
        MemoryRegion clientMemory = client.pd.allocateMemory(4096, ALL_ACCESS);
        ConnectionListener listener = server.cm.listen(new InetSocketAddress("0.0.0.0", SERVICE_PORT), 4);
        Future<Optional<Connection>> accepted = acceptor.submit(() -> listener.accept(serverQp, bytes("welcome"), WAIT));

        Connection clientSide = client.cm.connect(new InetSocketAddress(server.address(), SERVICE_PORT), clientQp,
                bytes("hello"), WAIT);
        Connection serverSide = accepted.get(20, TimeUnit.SECONDS).orElseThrow();

        assertThat(clientSide.peerPrivateData()).startsWith(bytes("welcome"));
        assertThat(serverSide.peerPrivateData()).startsWith(bytes("hello"));
        assertThat(serverSide.remoteAddress().getAddress()).isEqualTo(client.address());
        assertThat(clientQp.state()).isEqualTo(QueuePairState.RTS);
        assertThat(serverQp.state()).isEqualTo(QueuePairState.RTS);

        serverQp.postReceive(new ReceiveWorkRequest().wrId(1).addSge(serverMemory, 0, 4096));
        clientMemory.segment().setString(0, "from host 2");
        clientQp.postSend(signaled(2).addSge(clientMemory, 0, 12));
        Completion received = Completions.awaitOne(server.cq);
        assertThat(received.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(received.byteLength()).isEqualTo(12);
        assertThat(serverMemory.segment().getString(0)).isEqualTo("from host 2");
        assertThat(Completions.awaitOne(client.cq).status()).isEqualTo(CompletionStatus.SUCCESS);

        clientMemory.segment().set(ValueLayout.JAVA_LONG, 104, 42L);
        clientQp.postSend(signaled(3).opcode(SendOpcode.RDMA_WRITE).addSge(clientMemory, 104, 8)
                .remote(serverMemory.remote(200, 8)));
        assertThat(Completions.awaitOne(client.cq).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(serverMemory.segment().get(ValueLayout.JAVA_LONG, 200)).isEqualTo(42L);

        serverMemory.segment().setString(300, "read me");
        clientQp.postSend(signaled(4).opcode(SendOpcode.RDMA_READ).addSge(clientMemory, 300, 8)
                .remote(serverMemory.remote(300, 8)));
        Completion read = Completions.awaitOne(client.cq);
        assertThat(read.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(read.opcode()).isEqualTo(CompletionOpcode.RDMA_READ);
        assertThat(clientMemory.segment().getString(300)).isEqualTo("read me");

        clientQp.postSend(signaled(5).opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).addSge(clientMemory, 400, 8)
                .remote(serverMemory.remote(200, 8)).atomic(8, 0));
        assertThat(Completions.awaitOne(client.cq).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(clientMemory.segment().get(ValueLayout.JAVA_LONG, 400)).as("the value before the add")
                .isEqualTo(42L);
        assertThat(serverMemory.segment().get(ValueLayout.JAVA_LONG, 200)).isEqualTo(50L);
    }

    @Test
    void everyHostMayListenOnTheSamePortAndEachIsReachedAtItsOwnAddress() throws Exception {
        Host first = Host.on(open(new SharedFabric("same-port"), RXE0));
        Host second = Host.on(open(new SharedFabric("same-port"), RXE0));
        ConnectionListener firstListener = first.cm.listen(new InetSocketAddress("0.0.0.0", SERVICE_PORT), 1);
        ConnectionListener secondListener = second.cm.listen(new InetSocketAddress("0.0.0.0", SERVICE_PORT), 1);

        assertThat(connectAndAccept(second, first, firstListener).peerPrivateData())
                .as("host 2 connecting to host 1's address reaches host 1's listener")
                .startsWith(bytes("to " + first.address().getHostAddress()));
        assertThat(connectAndAccept(first, second, secondListener).peerPrivateData())
                .startsWith(bytes("to " + second.address().getHostAddress()));
    }

    @Test
    void eachSessionCountsOnlyItsOwnObjectsAndEveryCountReturnsToZero() throws Exception {
        Host server = Host.on(open(new SharedFabric("census"), RXE0));
        Host client = Host.on(open(new SharedFabric("census"), RXE0));
        ConnectionListener listener = server.cm.listen(new InetSocketAddress("0.0.0.0", SERVICE_PORT), 1);
        Connection serverSide = connectAndAccept(client, server, listener);

        assertThat(server.verbs.liveObjects()).containsEntry(ResourceKind.CONNECTION_LISTENER, 1L)
                .containsEntry(ResourceKind.CONNECTION, 1L).containsEntry(ResourceKind.QUEUE_PAIR, 1L);
        assertThat(client.verbs.liveObjects()).containsEntry(ResourceKind.CONNECTION_LISTENER, 0L)
                .containsEntry(ResourceKind.CONNECTION, 1L).containsEntry(ResourceKind.QUEUE_PAIR, 1L);
        assertThat(serverSide.isClosed()).isFalse();

        client.context.close();
        assertThat(client.verbs.liveObjects().values()).containsOnly(0L);
        assertThat(server.verbs.liveObjects()).as("the client's close left the server's objects alone")
                .containsEntry(ResourceKind.CONNECTION, 1L).containsEntry(ResourceKind.QUEUE_PAIR, 1L);
        server.context.close();
        assertThat(server.verbs.liveObjects().values()).containsOnly(0L);
    }

    @Test
    void aDatagramFromOneHostArrivesAtAnotherThroughTheGidOfItsPort() {
        Host sender = Host.on(open(new SharedFabric("datagrams"), RXE0));
        Host receiver = Host.on(open(new SharedFabric("datagrams"), RXE0));
        ConnectOptions options = ConnectOptions.defaults();
        QueuePair from = sender.pd.createQueuePair(QueuePairOptions.of(QueuePairType.UD, sender.cq,
                QueuePairCapabilities.of(8, 8)));
        QueuePair to = receiver.pd.createQueuePair(QueuePairOptions.of(QueuePairType.UD, receiver.cq,
                QueuePairCapabilities.of(8, 8)));
        from.connect(null, options);
        to.connect(null, options);
        MemoryRegion source = sender.pd.allocateMemory(64, ALL_ACCESS);
        MemoryRegion target = receiver.pd.allocateMemory(GRH_BYTES + 64, ALL_ACCESS);
        source.segment().setString(0, "datagram");
        AddressHandle toReceiver = sender.pd.createAddressHandle(AddressVector.ofGid(receiver.roceGid(), 1, 1));

        to.postReceive(new ReceiveWorkRequest().wrId(1).addSge(target, 0, GRH_BYTES + 64));
        from.postSend(signaled(2).addSge(source, 0, 9).datagram(toReceiver, to.qpNumber(), options.qkey()));

        assertThat(Completions.awaitOne(sender.cq).status()).isEqualTo(CompletionStatus.SUCCESS);
        Completion received = Completions.awaitOne(receiver.cq);
        assertThat(received.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(received.hasGrh()).isTrue();
        assertThat(target.segment().asSlice(8, Gid.LENGTH).toArray(ValueLayout.JAVA_BYTE)).as("source GID")
                .isEqualTo(sender.roceGid().toBytes());
        assertThat(target.segment().getString(GRH_BYTES)).isEqualTo("datagram");
    }

    @Test
    void sessionsOnDifferentFabricsCannotReachOneAnother() throws UnknownHostException {
        open(new SharedFabric("reachable"), RXE0);
        Host onTheFabric = Host.on(open(new SharedFabric("reachable"), RXE0));
        Host elsewhere = Host.on(open(new SharedFabric("elsewhere"), RXE0));
        Host alone = Host.on(open(null, RXE0));
        InetSocketAddress host2 = new InetSocketAddress(onTheFabric.address(), SERVICE_PORT);

        VerbsErrors.expectFailure("rdma_resolve_addr", Errno.EHOSTUNREACH,
                () -> elsewhere.cm.connect(host2, elsewhere.freshQueuePair(), new byte[0], WAIT));
        VerbsErrors.expectFailure("rdma_resolve_addr", Errno.EHOSTUNREACH,
                () -> alone.cm.connect(host2, alone.freshQueuePair(), new byte[0], WAIT));
    }

    @Test
    void aHostNumberIsFreedWhenItsSessionClosesAndTheLastToCloseEndsTheFabric() {
        open(new SharedFabric("renumbered"), RXE0);
        Verbs second = open(new SharedFabric("renumbered"), RXE0);
        open(new SharedFabric("renumbered"), RXE0);

        second.close();
        assertThat(Host.on(open(new SharedFabric("renumbered"), RXE0)).roceGid())
                .as("the lowest number free").isEqualTo(Gid.parse("::ffff:10.1.1.2"));

        sessions.forEach(Verbs::close);
        assertThat(Host.on(open(new SharedFabric("renumbered"), RXE0)).roceGid())
                .as("a fresh fabric").isEqualTo(Gid.parse("::ffff:10.1.1.1"));
    }

    @Test
    void sessionsJoiningAtOnceGetAnAddressEach() throws Exception {
        int hosts = 8;
        List<Future<Verbs>> joining = new ArrayList<>();
        for (int i = 0; i < hosts; i++) {
            joining.add(acceptor.submit(() -> Verbs.open(ProviderKind.SIMULATED,
                    List.of(new SharedFabric("at-once"), RXE0))));
        }
        Set<Gid> addresses = new HashSet<>();
        for (Future<Verbs> session : joining) {
            Verbs verbs = session.get(20, TimeUnit.SECONDS);
            sessions.add(verbs);
            addresses.add(Host.on(verbs).roceGid());
        }

        assertThat(addresses).hasSize(hosts)
                .allSatisfy(gid -> assertThat(gid.ipv4() & 0xFF).isBetween(1L, (long) hosts));
    }

    @Test
    void aSessionThatFailsToOpenLeavesNoHostBehind() {
        List<ProviderSettings> twoDevicesNamedAlike = List.of(new SharedFabric("failed-open"), RXE0, RXE0);
        VerbsErrors.expectFailure("ibv_get_device_list", Errno.EEXIST,
                () -> Verbs.open(ProviderKind.SIMULATED, twoDevicesNamedAlike));

        assertThat(Host.on(open(new SharedFabric("failed-open"), RXE0)).roceGid())
                .isEqualTo(Gid.parse("::ffff:10.1.1.1"));
    }

    @Test
    void theSurvivorOfAPeerHostThatClosedHearsTheDisconnectAndItsSendsFail() throws Exception {
        Host survivor = Host.on(open(new SharedFabric("peer-closes"), RXE0));
        Host leaving = Host.on(open(new SharedFabric("peer-closes"), RXE0));
        ConnectionListener listener = survivor.cm.listen(new InetSocketAddress("0.0.0.0", SERVICE_PORT), 1);
        Connection serverSide = connectAndAccept(leaving, survivor, listener);
        CompletableFuture<Connection> heard = new CompletableFuture<>();
        serverSide.onPeerDisconnect(heard::complete);
        MemoryRegion memory = survivor.pd.allocateMemory(64, ALL_ACCESS);

        leaving.verbs.close();

        assertThat(heard.get(20, TimeUnit.SECONDS)).isSameAs(serverSide);
        // As towards a peer QP destroyed on this host: nothing answers, so RC retries and gives up.
        serverSide.queuePair().postSend(signaled(1).addSge(memory, 0, 8));
        assertThat(Completions.awaitOne(survivor.cq).status()).isEqualTo(CompletionStatus.RETRY_EXC_ERR);
        assertThat(serverSide.queuePair().state()).isEqualTo(QueuePairState.ERR);
        survivor.context.close();
        assertThat(survivor.verbs.liveObjects().values()).containsOnly(0L);
    }

    /**
     * A partition of one host's link (every packet lost, as {@code tc netem loss 100%} both ways)
     * looks like a dead peer to RC: the port stays ACTIVE, nothing is raised, and only retries
     * running out tell (RETRY_EXC_ERR, the QP in ERR); a connection attempt times out, its
     * messages lost too; once the loss ends, a new connection gets through.
     */
    @Test
    void aPartitionOfOneHostsLinkRunsRcOutOfRetriesAndItsEndLetsANewConnectionThrough() throws Exception {
        Host server = Host.on(open(new SharedFabric("partition"), RXE0));
        Host client = Host.on(open(new SharedFabric("partition"), RXE0));
        ConnectionListener listener = server.cm.listen(new InetSocketAddress("0.0.0.0", SERVICE_PORT), 4);
        Connection cut = connectAndAccept(client, server, listener);
        MemoryRegion memory = server.pd.allocateMemory(64, ALL_ACCESS);
        FabricControl linkOfClient = client.verbs.extension(FabricControl.class).orElseThrow();

        linkOfClient.setLoss("rxe0", 1, 1.0);
        cut.queuePair().postSend(signaled(1).addSge(memory, 0, 8));

        assertThat(Completions.awaitOne(server.cq).status()).isEqualTo(CompletionStatus.RETRY_EXC_ERR);
        assertThat(cut.queuePair().state()).isEqualTo(QueuePairState.ERR);
        assertThat(client.context.queryPort(1).state()).as("a partition is no port down").isEqualTo(PortState.ACTIVE);
        VerbsErrors.expectFailure("rdma_connect", Errno.ETIMEDOUT, () -> client.cm.connect(
                new InetSocketAddress(server.address(), SERVICE_PORT), client.freshQueuePair(), new byte[0],
                Duration.ofMillis(200)));

        linkOfClient.setLoss("rxe0", 1, 0);
        Connection healed = connectAndAccept(client, server, listener);
        MemoryRegion clientMemory = client.pd.allocateMemory(64, ALL_ACCESS);
        memory.segment().set(ValueLayout.JAVA_LONG, 0, 42L);
        healed.queuePair().postSend(signaled(2).opcode(SendOpcode.RDMA_WRITE).addSge(memory, 0, 8)
                .remote(clientMemory.remote(0, 8)));
        assertThat(Completions.awaitOne(server.cq).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(clientMemory.segment().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42L);
    }

    /**
     * Under a loss rate on one host's link RC retransmits what was lost: every message arrives, in
     * order, none twice. A port's traffic with itself crosses no link and loses nothing.
     */
    @Test
    void underALossRateRcDeliversEveryMessageInOrderAndLoopbackLosesNothing() throws Exception {
        Host server = Host.on(open(new SharedFabric("lossy"), RXE0));
        Host client = Host.on(open(new SharedFabric("lossy"), RXE0));
        ConnectionListener listener = server.cm.listen(new InetSocketAddress("0.0.0.0", SERVICE_PORT), 4);
        QueuePair clientQp = client.freshQueuePair();
        Future<Optional<Connection>> accepted = acceptor.submit(() -> listener.accept(server.freshQueuePair(),
                new byte[0], WAIT));
        client.cm.connect(new InetSocketAddress(server.address(), SERVICE_PORT), clientQp, new byte[0], WAIT);
        QueuePair serverQp = accepted.get(20, TimeUnit.SECONDS).orElseThrow().queuePair();
        MemoryRegion target = client.pd.allocateMemory(16 * 100, ALL_ACCESS);
        MemoryRegion source = server.pd.allocateMemory(64, ALL_ACCESS);
        FabricControl linkOfClient = client.verbs.extension(FabricControl.class).orElseThrow();

        linkOfClient.setLoss("rxe0", 1, 0.1);
        for (int i = 0; i < 100; i++) {
            clientQp.postReceive(new ReceiveWorkRequest().wrId(i).addSge(target, i * 16L, 16));
            serverQp.postSend(signaled(i).addSge(source, 0, 8));
            assertThat(Completions.awaitOne(server.cq).status()).as("send " + i).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(Completions.awaitOne(client.cq).wrId()).as("in order").isEqualTo(i);
        }
        assertThat(Completions.pollNow(client.cq)).as("none twice").isEmpty();
        assertThat(client.context.portCounters(1).counters().get("port_xmit_discards")
                + server.context.portCounters(1).counters().get("port_xmit_discards")).as("packets were lost").isPositive();

        linkOfClient.setLoss("rxe0", 1, 1.0);
        QueuePair first = client.freshQueuePair();
        QueuePair second = client.freshQueuePair();
        first.connect(second.localEndpoint(ConnectOptions.defaults()), ConnectOptions.defaults());
        second.connect(first.localEndpoint(ConnectOptions.defaults()), ConnectOptions.defaults());
        second.postReceive(new ReceiveWorkRequest().wrId(7).addSge(target, 0, 16));
        first.postSend(signaled(8).addSge(target, 16, 8));
        assertThat(Completions.awaitOne(client.cq).status()).as("loopback on the cut-off host")
                .isEqualTo(CompletionStatus.SUCCESS);
    }

    @Test
    void fabricControlActsOnTheDevicesOfItsOwnSession() {
        Verbs first = open(new SharedFabric("control"), RXE0);
        Verbs second = open(new SharedFabric("control"), RXE0);
        DeviceContext firstDevice = first.devices().getFirst().open();
        DeviceContext secondDevice = second.devices().getFirst().open();

        second.extension(FabricControl.class).orElseThrow().setPortState("rxe0", 1, PortState.DOWN);

        assertThat(secondDevice.queryPort(1).state()).isEqualTo(PortState.DOWN);
        assertThat(firstDevice.queryPort(1).state()).isEqualTo(PortState.ACTIVE);
    }

    @Test
    void aSessionIsOneHostOnOneFabric() {
        List<ProviderSettings> twoFabrics = List.of(new SharedFabric("left"), new SharedFabric("right"));
        VerbsErrors.expectFailure("ibv_get_device_list", Errno.EINVAL,
                () -> Verbs.open(ProviderKind.SIMULATED, twoFabrics));
    }

    @Test
    void aSharedFabricNeedsAName() {
        assertThatIllegalArgumentException().isThrownBy(() -> new SharedFabric(" "));
        assertThatIllegalArgumentException().isThrownBy(() -> new SharedFabric(""));
    }

    /** Opens a simulated session with {@code devices}, on {@code fabric} or (null) a private one; closed after the test. */
    private Verbs open(@Nullable SharedFabric fabric, DeviceSpec... devices) {
        List<ProviderSettings> settings = new ArrayList<>(List.of(devices));
        if (fabric != null) {
            settings.add(fabric);
        }
        Verbs verbs = Verbs.open(ProviderKind.SIMULATED, settings);
        sessions.add(verbs);
        return verbs;
    }

    /** {@code client} connects a fresh QP to {@code server}'s address, which {@code listener} accepts; the server's end. */
    private Connection connectAndAccept(Host client, Host server, ConnectionListener listener) throws Exception {
        QueuePair serverQp = server.freshQueuePair();
        Future<Optional<Connection>> accepted = acceptor.submit(() -> listener.accept(serverQp, new byte[0], WAIT));
        InetSocketAddress remote = new InetSocketAddress(server.address(), listener.localAddress().getPort());
        client.cm.connect(remote, client.freshQueuePair(), bytes("to " + server.address().getHostAddress()), WAIT);
        return accepted.get(20, TimeUnit.SECONDS).orElseThrow();
    }

    private static SendWorkRequest signaled(long wrId) {
        return new SendWorkRequest().wrId(wrId).flags(EnumSet.of(SendFlag.SIGNALED));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** One application on the fabric: its session, with its one device open. */
    private record Host(Verbs verbs, DeviceContext context, ProtectionDomain pd, CompletionQueue cq,
                        ConnectionManager cm) {

        static Host on(Verbs verbs) {
            DeviceContext context = verbs.devices().getFirst().open();
            return new Host(verbs, context, context.allocateProtectionDomain(), context.createCompletionQueue(64),
                    ConnectionManager.of(context));
        }

        QueuePair freshQueuePair() {
            return pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, cq, QueuePairCapabilities.of(16, 16)));
        }

        /** Port 1's RoCE GID, GID index 1: the one rdma_cm resolves addresses to. */
        Gid roceGid() {
            return context.queryGid(1, 1);
        }

        InetAddress address() throws UnknownHostException {
            long ip = roceGid().ipv4();
            return InetAddress.getByAddress(new byte[] {(byte) (ip >>> 24), (byte) (ip >>> 16), (byte) (ip >>> 8),
                    (byte) ip});
        }
    }
}

package io.rdma.boot.autoconfigure.connection;

import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.boot.autoconfigure.resource.InvalidRdmaConfigurationException;
import io.rdma.spring.connection.ConnectionState;
import io.rdma.spring.connection.RdmaConnectionException;
import io.rdma.spring.connection.RdmaConnections;
import io.rdma.boot.autoconfigure.ResourceLifecycleRecorder;
import io.rdma.boot.autoconfigure.SimulatedOnly;
import io.rdma.boot.autoconfigure.health.RdmaHealthIndicator;
import io.rdma.spring.listener.RdmaListener;
import io.rdma.spring.listener.ReceivedMessage;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.spring.channel.ChannelFollower;
import io.rdma.spring.channel.ChannelState;
import io.rdma.spring.channel.RdmaChannel;
import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.completion.CompletionPollers;
import io.rdma.spring.connection.RdmaConnectionStateChangedEvent;
import io.rdma.spring.naming.UnknownRdmaNameException;
import io.rdma.spring.template.RdmaChannelDownException;
import io.rdma.spring.template.RdmaOperationException;
import io.rdma.spring.template.RdmaTemplate;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.Connection;
import io.rdma.verbs.api.ConnectionManager;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.provider.simulated.FabricControl;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/** Declared listeners and outbound connections, through the connection manager of the device under test. */
class RdmaConnectionsTests {

    @Test
    void aListenerAcceptsEveryPeerOnAQueuePairOfItsOwnAndRepliesToEach() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        RdmaContextRunners.runner("three-clients").withBean(ResourceLifecycleRecorder.class, () -> recorder)
                .withUserConfiguration(ThreeClientsConfiguration.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    RdmaConnections connections = context.getBean(RdmaConnections.class);
                    assertThat(connections.outbound()).extracting(RdmaConnections.OutboundStatus::state)
                            .containsOnly(ConnectionState.UP);
                    await().atMost(Duration.ofSeconds(5)).until(() ->
                            connections.listeners().getFirst().peers().size() == 3);
                    RdmaConnections.ListenerStatus listener = connections.listeners().getFirst();
                    assertThat(listener.boundAddress()).endsWith(":7480");
                    assertThat(listener.backlog()).isEqualTo(3);
                    assertThat(listener.peers()).extracting(RdmaConnections.PeerStatus::name)
                            .containsExactlyInAnyOrder("rpc#1", "rpc#2", "rpc#3");
                    assertThat(listener.peers()).extracting(RdmaConnections.PeerStatus::qpNumber).doesNotHaveDuplicates();
                    assertThat(listener.peers()).extracting(RdmaConnections.PeerStatus::qpState).containsOnly("RTS");

                    RdmaTemplate template = context.getBean(RdmaTemplate.class);
                    Replies replies = context.getBean(Replies.class);
                    for (String client : List.of("client1", "client2", "client3")) {
                        template.send(client, ("from " + client).getBytes(StandardCharsets.UTF_8))
                                .get(5, TimeUnit.SECONDS);
                    }
                    for (String client : List.of("client1", "client2", "client3")) {
                        ReceivedMessage reply = replies.of(client).poll(5, TimeUnit.SECONDS);
                        assertThat(reply).as("reply to " + client).isNotNull();
                        assertThat(new String(reply.payload(), StandardCharsets.UTF_8))
                                .isEqualTo("FROM " + client.toUpperCase());
                    }
                });
        Map<ResourceKind, Long> live = recorder.verbs().liveObjects();
        assertThat(live).containsKeys(ResourceKind.CONNECTION, ResourceKind.CONNECTION_LISTENER);
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    /**
     * Each side sends its first message the moment it is up (the client on its connection's UP
     * event, the listener on its peer's), which can be before the other side's connect or accept
     * has returned: the receives each side posted before its handshake take them. With no RNR
     * retry declared (iWARP has none at all) a message that came before them would fail. A
     * follower of the peers' channels that takes 300 ms over each UP holds the listener's side
     * back, as a busy host may, so that receives posted only once the peer is up come too late.
     */
    @Test
    void firstMessagesSentTheMomentAConnectionIsUpFindTheirReceives() {
        String pd = RdmaContextRunners.DEVICE_PROPERTY + ".protection-domains.pd0";
        String[] noRnrRetry = RdmaContextRunners.deviceIsIwarp() ? new String[0] : new String[] {
                pd + ".queue-pairs.client.reliability.rnr-retry=0",
                pd + ".queue-pair-prototypes.echo-peer.reliability.rnr-retry=0"};
        RdmaContextRunners.runner("connected").withPropertyValues(noRnrRetry)
                .withUserConfiguration(EchoConfiguration.class).withBean(SlowToFollowPeers.class)
                .withBean(SendsWhenUp.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    Replies replies = context.getBean(Replies.class);
                    List<String> received = new ArrayList<>();
                    for (int i = 0; i < 2; i++) {
                        ReceivedMessage message = replies.of("client").poll(10, TimeUnit.SECONDS);
                        assertThat(message).as("message %d on the client", i + 1).isNotNull();
                        received.add(new String(message.payload(), StandardCharsets.UTF_8));
                    }
                    assertThat(received).containsExactlyInAnyOrder("welcome", "FIRST");
                    for (CompletableFuture<Void> sent : context.getBean(SendsWhenUp.class).sends) {
                        assertThat(sent).succeedsWithin(Duration.ofSeconds(10));
                    }
                });
    }

    @Test
    void listenersAndConnectionsAreDestroyedFirstThenTheBeansInLibibverbsOrder() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        RdmaContextRunners.runner("connected").withBean(ResourceLifecycleRecorder.class, () -> recorder)
                .withUserConfiguration(EchoConfiguration.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    RdmaConnections connections = context.getBean(RdmaConnections.class);
                    await().atMost(Duration.ofSeconds(5)).until(() ->
                            connections.listeners().getFirst().peers().size() == 1);
                });
        List<ResourceLifecycleRecorder.Destruction> destroyed = recorder.destroyed();
        // the listener, the client's connection and the connection the listener accepted
        assertThat(destroyed).extracting(ResourceLifecycleRecorder.Destruction::kind).startsWith(
                ResourceKind.CONNECTION_LISTENER, ResourceKind.CONNECTION, ResourceKind.CONNECTION);
        assertThat(destroyed.subList(3, destroyed.size())).extracting(ResourceLifecycleRecorder.Destruction::name)
                .containsExactlyElementsOf(recorder.created().reversed());
        assertThat(destroyed).extracting(ResourceLifecycleRecorder.Destruction::kind)
                .isSortedAccordingTo(Comparator.comparingInt(ResourceKind::destroyRank));
        assertThat(destroyed).allSatisfy(destruction -> assertThat(destruction.openDependents())
                .as("resources still open that depend on %s when it was destroyed", destruction.name()).isEmpty());
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    @Test
    void portZeroListensOnAChosenPortThatIsShown() {
        RdmaContextRunners.runner("connected").withPropertyValues("rdma.connections.listeners.spare.port=0",
                "rdma.connections.listeners.spare.queue-pair-prototype=echo-peer",
                "rdma.connections.listeners.spare.max-connections=1",
                "rdma.connections.listeners.echo.max-connections=3").run(context -> {
                    assertThat(context).hasNotFailed();
                    RdmaConnections connections = context.getBean(RdmaConnections.class);
                    int chosen = connections.boundAddress("spare").orElseThrow().getPort();
                    assertThat(chosen).isPositive();
                    assertThat(connections.listeners()).filteredOn(listener -> listener.name().equals("spare"))
                            .singleElement().satisfies(spare -> assertThat(spare.boundAddress()).endsWith(":" + chosen));
                });
    }

    /**
     * Each peer that comes and goes must give back the receive buffers its queue pair had
     * posted, flushed or not (a destroyed QP on Soft-RoCE completes none of them): more peers in
     * turn than the pool could serve at once are accepted, answered and dropped, and the pool ends
     * where it began.
     */
    @Test
    void peersThatComeAndGoGiveTheirReceiveBuffersBackToThePool() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        RdmaContextRunners.runner("connected").withBean(ResourceLifecycleRecorder.class, () -> recorder)
                .withUserConfiguration(EchoConfiguration.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    RdmaConnections connections = context.getBean(RdmaConnections.class);
                    await().atMost(Duration.ofSeconds(30)).until(() ->
                            connections.listeners().getFirst().peers().size() == 1);
                    MemoryPool pool = context.getBean("buffers", MemoryPool.class);
                    int leasedWithOnePeer = pool.leasedCount();
                    ConnectionManager manager = ConnectionManager.of(context.getBean(RdmaContextRunners.DEVICE,
                            DeviceContext.class));
                    ProtectionDomain pd = context.getBean("pd0", ProtectionDomain.class);
                    CompletionQueue cq = context.getBean("cq0", CompletionQueue.class);
                    InetSocketAddress listener = new InetSocketAddress(RdmaContextRunners.PEER_ADDRESS, 7471);
                    // each peer holds pool.capacity() / (2 * max-connections) buffers while connected
                    int peers = 3 * 2 * 4;
                    for (int peer = 1; peer <= peers; peer++) {
                        try (QueuePair qp = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, cq,
                                QueuePairCapabilities.of(8, 8)))) {
                            Connection connection = manager.connect(listener, qp, new byte[0], Duration.ofSeconds(30));
                            await().atMost(Duration.ofSeconds(30)).until(() ->
                                    connections.listeners().getFirst().peers().size() == 2);
                            connection.close();
                        }
                        int dropped = peer;
                        await("peer " + dropped + " let go").atMost(Duration.ofSeconds(30)).until(() ->
                                connections.listeners().getFirst().peers().size() == 1);
                        await("buffers back after peer " + dropped).atMost(Duration.ofSeconds(30))
                                .until(() -> pool.leasedCount() == leasedWithOnePeer);
                    }
                    assertThat(roundTrip(context.getBean(RdmaTemplate.class), context.getBean(Replies.class),
                            "still served")).isEqualTo("STILL SERVED");
                });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    /**
     * A peer's channel comes and goes with the peer: a call naming one that left is a GONE
     * channel, the future's failure, as a call waiting when it leaves gets (what a service
     * answers 503); a name no listener gives its peers is a mistake in the code, thrown at once.
     */
    @Test
    void aCallNamingAPeerThatLeftFailsAsGoneWhileAMisspeltNameIsThrown() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        RdmaContextRunners.runner("connected").withBean(ResourceLifecycleRecorder.class, () -> recorder)
                .withUserConfiguration(EchoConfiguration.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    RdmaConnections connections = context.getBean(RdmaConnections.class);
                    await().atMost(Duration.ofSeconds(30)).until(() ->
                            connections.listeners().getFirst().peers().size() == 1);
                    // The listener learns of the second peer, and of its leaving, after connect and
                    // close return (on rxe0 on its own thread): wait until its channel has gone.
                    BlockingQueue<String> secondPeer = new LinkedBlockingQueue<>();
                    context.getBean(RdmaChannels.class).follow("echo", new ChannelFollower() {
                        @Override
                        public void up(RdmaChannel channel) {
                        }

                        @Override
                        public void down(RdmaChannel channel) {
                        }

                        @Override
                        public void gone(RdmaChannel channel) {
                            secondPeer.add(channel.name());
                        }
                    });
                    ConnectionManager manager = ConnectionManager.of(context.getBean(RdmaContextRunners.DEVICE,
                            DeviceContext.class));
                    try (QueuePair qp = context.getBean("pd0", ProtectionDomain.class).createQueuePair(
                            QueuePairOptions.of(QueuePairType.RC, context.getBean("cq0", CompletionQueue.class),
                                    QueuePairCapabilities.of(8, 8)))) {
                        manager.connect(new InetSocketAddress(RdmaContextRunners.PEER_ADDRESS, 7471), qp,
                                new byte[0], Duration.ofSeconds(30)).close();
                    }
                    assertThat(secondPeer.poll(30, TimeUnit.SECONDS)).isEqualTo("echo#2");
                    assertThat(connections.listeners().getFirst().peers()).extracting(RdmaConnections.PeerStatus::name)
                            .containsExactly("echo#1");
                    RdmaTemplate template = context.getBean(RdmaTemplate.class);
                    byte[] message = "anyone?".getBytes(StandardCharsets.UTF_8);

                    for (CompletableFuture<?> call : List.of(template.send("echo#2", message),
                            template.sendAndReceive("echo#2", message), template.send("echo#5", message))) {
                        assertThat(catchThrowable(() -> call.get(5, TimeUnit.SECONDS)))
                                .isInstanceOf(ExecutionException.class).cause()
                                .isInstanceOfSatisfying(RdmaChannelDownException.class, down ->
                                        assertThat(down.state()).isEqualTo(ChannelState.GONE))
                                .hasMessageContaining("no peer or instance of 'echo' is connected on it now");
                    }
                    assertThatExceptionOfType(UnknownRdmaNameException.class)
                            .isThrownBy(() -> template.send("ehco#1", message))
                            .withMessageContaining("names channel 'ehco#1', which is not declared. Did you mean 'echo#1'?");
                    assertThatExceptionOfType(UnknownRdmaNameException.class)
                            .isThrownBy(() -> template.sendAndReceive("echo-peer#1", message))
                            .withMessageContaining("names channel 'echo-peer#1'");
                });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    /**
     * A queue pair moved to ERR with no failed completion or async event to tell of it (on rxe0,
     * a partition once left the sample's connection UP on such a queue pair, every operation
     * flushed): the first flushed completion is its failure, and the connection reconnects.
     */
    @Test
    void aQueuePairFlushedWhileItsConnectionIsUpIsReconnected() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        RdmaContextRunners.runner("connected").withBean(ResourceLifecycleRecorder.class, () -> recorder)
                .withUserConfiguration(EchoConfiguration.class).run(context -> {
            assertThat(context).hasNotFailed();
            RdmaConnections connections = context.getBean(RdmaConnections.class);
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            Replies replies = context.getBean(Replies.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> connections.listeners().getFirst().peers().size() == 1);
            assertThat(roundTrip(template, replies, "before")).isEqualTo("BEFORE");

            // the queue pair in use: an attempt that failed at the start may have made the bean's successor
            context.getBean(RdmaChannels.class).channel("client", "the test").queuePair().toError();
            // The send fails for the flush either way: flushed itself, or refused on a channel the
            // flushed receives took DOWN first (the poller may deliver them before this thread posts)
            Throwable failure = catchThrowable(() -> template.send("client", "flushed".getBytes(StandardCharsets.UTF_8))
                    .get(5, TimeUnit.SECONDS)).getCause();
            if (failure instanceof RdmaChannelDownException down) {
                assertThat(down).hasMessageContaining("(completion WR_FLUSH_ERR)");
                assertThat(down.state()).isEqualTo(ChannelState.DOWN);
            } else {
                assertThat(failure).isInstanceOfSatisfying(RdmaOperationException.class,
                        flushed -> assertThat(flushed.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR));
            }

            await().atMost(Duration.ofSeconds(30)).until(() ->
                    connections.outbound().getFirst().state() == ConnectionState.UP
                            && connections.outbound().getFirst().attempts() == 2);
            assertThat(roundTrip(template, replies, "after")).isEqualTo("AFTER");
        });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    /**
     * A queue pair that fails while the attempt that connected it still publishes UP (a listener
     * of the event runs on the attempting thread, here one that moves the reconnected queue pair
     * to ERR and waits until its flush was delivered) is connected again once that attempt is
     * done. The failure was lost before: under Soft-RoCE's emulation a flush came that early, and
     * the connection stayed UP on a queue pair in ERR for good.
     */
    @Test
    void aQueuePairThatFailsWhileItsConnectionPublishesUpIsReconnectedOnceThatIsDone() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        RdmaContextRunners.runner("connected").withBean(ResourceLifecycleRecorder.class, () -> recorder)
                .withUserConfiguration(EchoConfiguration.class).withBean(FailingAtSecondUp.class).run(context -> {
            assertThat(context).hasNotFailed();
            RdmaConnections connections = context.getBean(RdmaConnections.class);
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            Replies replies = context.getBean(Replies.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> connections.listeners().getFirst().peers().size() == 1);

            // the first failure: its reconnection's UP is where the bean fails the queue pair again
            context.getBean(RdmaChannels.class).channel("client", "the test").queuePair().toError();
            await().atMost(Duration.ofSeconds(30)).until(() -> context.getBean(FailingAtSecondUp.class).failedAtUp);
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    connections.outbound().getFirst().state() == ConnectionState.UP
                            && connections.outbound().getFirst().attempts() == 3);
            assertThat(context.getBean(RdmaChannels.class).channel("client", "the test").queuePair().state())
                    .isEqualTo(QueuePairState.RTS);
            assertThat(roundTrip(template, replies, "after")).isEqualTo("AFTER");
        });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    /**
     * A listener of a connection's UP may send on its channel at once: when UP is published, at
     * the first connection and at a reconnection, for the outbound connection and for the peers
     * the listener accepted, the channel is UP already. Simulated only: the client QP fails by
     * fault injection.
     */
    @Test
    @SimulatedOnly
    void whenUpIsPublishedTheChannelIsUpAlready() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        RdmaContextRunners.simulatedRunner("connected").withBean(ResourceLifecycleRecorder.class, () -> recorder)
                .withUserConfiguration(EchoConfiguration.class)
                .withBean(ChannelStatesAtUp.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    RdmaConnections connections = context.getBean(RdmaConnections.class);
                    QueuePair client = context.getBean("client", QueuePair.class);
                    context.getBean(Verbs.class).extension(FabricControl.class).orElseThrow()
                            .failQueuePair(RdmaContextRunners.DECLARED_DEVICE, client.qpNumber());
                    await().atMost(Duration.ofSeconds(10)).until(() ->
                            connections.outbound().getFirst().state() == ConnectionState.UP
                                    && connections.outbound().getFirst().attempts() == 2
                                    && connections.listeners().getFirst().peers().size() == 1);
                    List<String> seen = context.getBean(ChannelStatesAtUp.class).seen;
                    assertThat(seen).as("the channel's state as each UP was published")
                            .containsExactlyInAnyOrder("client UP", "client UP", "echo#1 UP", "echo#2 UP");
                });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    /**
     * A declared client queue pair that failed is made anew from its declaration and connected
     * again: the channel, the template and health go on under its name on the new one, and the
     * bean (the first queue pair) is closed. Simulated only: the client QP fails by fault injection.
     */
    @Test
    @SimulatedOnly
    void aFailedClientQueuePairIsMadeAnewAndConnectedAgain() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        RdmaContextRunners.simulatedRunner("connected").withBean(ResourceLifecycleRecorder.class, () -> recorder)
                .withUserConfiguration(EchoConfiguration.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    QueuePair client = context.getBean("client", QueuePair.class);
                    RdmaConnections connections = context.getBean(RdmaConnections.class);
                    RdmaHealthIndicator health = new RdmaHealthIndicator(context.getBean(RdmaResources.class),
                            connections);
                    assertThat(connections.outbound().getFirst().attempts()).isEqualTo(1);

                    context.getBean(Verbs.class).extension(FabricControl.class).orElseThrow()
                            .failQueuePair(RdmaContextRunners.DECLARED_DEVICE, client.qpNumber());

                    await().atMost(Duration.ofSeconds(10)).until(() ->
                            connections.outbound().getFirst().state() == ConnectionState.UP
                                    && connections.outbound().getFirst().attempts() == 2);
                    QueuePair renewed = context.getBean(RdmaChannels.class).channel("client", "the test").queuePair();
                    assertThat(renewed).isNotSameAs(client);
                    assertThat(renewed.qpNumber()).isNotEqualTo(client.qpNumber());
                    assertThat(renewed.state()).isEqualTo(QueuePairState.RTS);
                    assertThat(client.isClosed()).as("the bean, the first queue pair").isTrue();
                    assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
                    assertThat(health.health(true).getDetails()).containsEntry("connections",
                            Map.of("echo-client", "UP"));
                    context.getBean(RdmaTemplate.class).send("client", "again".getBytes(StandardCharsets.UTF_8), 3)
                            .get(5, TimeUnit.SECONDS);
                    ReceivedMessage reply = context.getBean(Replies.class).of("client").poll(5, TimeUnit.SECONDS);
                    assertThat(reply).isNotNull();
                    assertThat(new String(reply.payload(), StandardCharsets.UTF_8)).isEqualTo("AGAIN");
                });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    /**
     * A client whose queue pair failed while its port was down cannot tell the listener it left
     * until the port is back (its disconnect is held), and connects again then: the listener, full
     * with the peer it has not heard leave, lets that peer go, on the held disconnect or on the
     * request, which comes from the same client (what frees it when the disconnect was lost, as a
     * peer's port down loses it), and accepts it. (On rxe0 a link bounce left an instance's
     * connections to itself timing out for good: its listeners, full, took no request.) Simulated
     * only: the port goes down and the queue pair fails by fault injection.
     */
    @Test
    @SimulatedOnly
    void aFullListenerTakesBackAClientWhoseQueuePairFailedWhileThePortWasDown() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        RdmaContextRunners.simulatedRunner("connected").withBean(ResourceLifecycleRecorder.class, () -> recorder)
                .withPropertyValues("rdma.connections.listeners.echo.max-connections=1")
                .withUserConfiguration(EchoConfiguration.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    RdmaConnections connections = context.getBean(RdmaConnections.class);
                    await().atMost(Duration.ofSeconds(10)).until(() ->
                            connections.listeners().getFirst().peers().size() == 1);
                    FabricControl fabric = context.getBean(Verbs.class).extension(FabricControl.class).orElseThrow();

                    fabric.setPortState(RdmaContextRunners.DECLARED_DEVICE, 1, PortState.DOWN);
                    fabric.failQueuePair(RdmaContextRunners.DECLARED_DEVICE,
                            context.getBean("client", QueuePair.class).qpNumber());
                    await().atMost(Duration.ofSeconds(10)).until(() ->
                            connections.outbound().getFirst().state() != ConnectionState.UP);
                    assertThat(connections.listeners().getFirst().peers()).extracting(RdmaConnections.PeerStatus::name)
                            .as("the peer whose disconnect is held").containsExactly("echo#1");
                    fabric.setPortState(RdmaContextRunners.DECLARED_DEVICE, 1, PortState.ACTIVE);

                    await().atMost(Duration.ofSeconds(20)).until(() ->
                            connections.outbound().getFirst().state() == ConnectionState.UP);
                    assertThat(connections.listeners().getFirst().peers()).extracting(RdmaConnections.PeerStatus::name)
                            .containsExactly("echo#2");
                    assertThat(roundTrip(context.getBean(RdmaTemplate.class), context.getBean(Replies.class),
                            "again")).isEqualTo("AGAIN");
                });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    /**
     * A connection that failed while no port of its device was ACTIVE waits for one, DOWN, rather
     * than spend its attempts on connects that cannot leave (ENETDOWN), and connects the moment the
     * port is ACTIVE again: not after its backoff, here 20 s from the second attempt on. (On rxe0
     * a link down for 5 s spent a connection's whole round, and it came back only at backoff.max.)
     * Simulated only: the port goes down and the queue pair fails by fault injection.
     */
    @Test
    @SimulatedOnly
    void aConnectionThatLostItsLinkConnectsAsSoonAsThePortIsActiveAgain() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        String backoff = "rdma.connections.outbound.echo-client.backoff.";
        RdmaContextRunners.simulatedRunner("connected").withBean(ResourceLifecycleRecorder.class, () -> recorder)
                .withPropertyValues(backoff + "initial=200ms", backoff + "multiplier=100", backoff + "max=60s")
                .withUserConfiguration(EchoConfiguration.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    RdmaConnections connections = context.getBean(RdmaConnections.class);
                    FabricControl fabric = context.getBean(Verbs.class).extension(FabricControl.class).orElseThrow();
                    assertThat(connections.outbound().getFirst().attempts()).isEqualTo(1);

                    fabric.setPortState(RdmaContextRunners.DECLARED_DEVICE, 1, PortState.DOWN);
                    fabric.failQueuePair(RdmaContextRunners.DECLARED_DEVICE,
                            context.getBean("client", QueuePair.class).qpNumber());
                    await().atMost(Duration.ofSeconds(10)).until(() ->
                            connections.outbound().getFirst().state() == ConnectionState.DOWN);
                    Thread.sleep(2_000);
                    assertThat(connections.outbound().getFirst().attempts())
                            .as("one attempt found the port down; none since").isEqualTo(2);
                    assertThat(connections.outbound().getFirst().state()).isEqualTo(ConnectionState.DOWN);

                    fabric.setPortState(RdmaContextRunners.DECLARED_DEVICE, 1, PortState.ACTIVE);

                    await().atMost(Duration.ofSeconds(5)).until(() ->
                            connections.outbound().getFirst().state() == ConnectionState.UP);
                    assertThat(connections.outbound().getFirst().attempts()).isEqualTo(3);
                    assertThat(roundTrip(context.getBean(RdmaTemplate.class), context.getBean(Replies.class),
                            "back")).isEqualTo("BACK");
                });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    /**
     * The loss on the listener's side: a partition at the listener's host loses the client's
     * disconnect (the client's port is ACTIVE, so nothing holds it), and the listener's idle queue
     * pair notices nothing. Full with the peer it never heard leave, the listener lets that peer go
     * when the same client connects again (the identity in its private data) and accepts it; a
     * request from anyone else would wait out the accept-timeout and be refused, each time. Two
     * hosts on one shared simulated fabric, the listener's first (its address 10.1.1.1).
     */
    @Test
    @SimulatedOnly
    void aFullListenerWhoseLinkLostTheDisconnectLetsThePeerGoWhenItsClientConnectsAgain() {
        String fabric = "rdma.simulated.fabric=lost-disconnect";
        RdmaContextRunners.simulatedRunner("two-hosts-listener").withPropertyValues(fabric)
                .withBean(EchoServer.class).run(listener -> {
                    assertThat(listener).hasNotFailed();
                    RdmaConnections accepting = listener.getBean(RdmaConnections.class);
                    FabricControl listenerLink = listener.getBean(Verbs.class).extension(FabricControl.class)
                            .orElseThrow();
                    RdmaContextRunners.simulatedRunner("two-hosts-client")
                            .withPropertyValues(fabric, "rdma-test.peer-address=10.1.1.1")
                            .withUserConfiguration(ClientRepliesConfiguration.class).run(client -> {
                                assertThat(client).hasNotFailed();
                                RdmaConnections connecting = client.getBean(RdmaConnections.class);
                                RdmaTemplate template = client.getBean(RdmaTemplate.class);
                                Replies replies = client.getBean(Replies.class);
                                assertThat(roundTrip(template, replies, "before")).isEqualTo("BEFORE");
                                assertThat(accepting.listeners().getFirst().peers())
                                        .extracting(RdmaConnections.PeerStatus::name).containsExactly("echo#1");

                                listenerLink.setLoss(RdmaContextRunners.DECLARED_DEVICE, 1, 1.0);
                                client.getBean(Verbs.class).extension(FabricControl.class).orElseThrow()
                                        .failQueuePair(RdmaContextRunners.DECLARED_DEVICE,
                                                client.getBean("client", QueuePair.class).qpNumber());
                                // the reconnection's first attempt timed out in the partition
                                await().atMost(Duration.ofSeconds(10)).until(() ->
                                        connecting.outbound().getFirst().attempts() >= 3);
                                assertThat(accepting.listeners().getFirst().peers())
                                        .extracting(RdmaConnections.PeerStatus::name)
                                        .as("the peer whose disconnect was lost").containsExactly("echo#1");
                                listenerLink.setLoss(RdmaContextRunners.DECLARED_DEVICE, 1, 0);

                                await().atMost(Duration.ofSeconds(10)).until(() ->
                                        connecting.outbound().getFirst().state() == ConnectionState.UP);
                                await().atMost(Duration.ofSeconds(5)).until(() -> accepting.listeners().getFirst()
                                        .peers().stream().map(RdmaConnections.PeerStatus::name).toList()
                                        .equals(List.of("echo#2")));
                                assertThat(roundTrip(template, replies, "after")).isEqualTo("AFTER");
                            });
                });
    }

    /**
     * The declared queue pairs of both sides are made anew for the reconnection (the listener's for
     * its next peer). Simulated only: the client QP fails by fault injection.
     */
    @Test
    @SimulatedOnly
    void aSingleQueuePairListenerLetsAFailedPeerGoAndAcceptsItsReconnectionAtOnce() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        RdmaContextRunners.simulatedRunner("single-peer").withBean(ResourceLifecycleRecorder.class, () -> recorder)
                .withUserConfiguration(SinglePeerConfiguration.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    RdmaConnections connections = context.getBean(RdmaConnections.class);
                    RdmaTemplate template = context.getBean(RdmaTemplate.class);
                    Replies replies = context.getBean(Replies.class);
                    QueuePair server = context.getBean("server", QueuePair.class);
                    QueuePair client = context.getBean("client", QueuePair.class);
                    assertThat(roundTrip(template, replies, "first")).isEqualTo("FIRST");

                    context.getBean(Verbs.class).extension(FabricControl.class).orElseThrow()
                            .failQueuePair(RdmaContextRunners.DECLARED_DEVICE, client.qpNumber());

                    // the server hears of the disconnect and frees its queue pair, so the first attempt
                    // gets through rather than waiting out its 2s timeout behind the old peer
                    await().atMost(Duration.ofSeconds(5)).until(() ->
                            connections.outbound().getFirst().state() == ConnectionState.UP
                                    && connections.outbound().getFirst().attempts() == 2);
                    RdmaChannels channels = context.getBean(RdmaChannels.class);
                    await().atMost(Duration.ofSeconds(5)).until(() ->
                            connections.listeners().getFirst().peers().size() == 1
                                    && channels.channel("server", "the test").queuePair().state() == QueuePairState.RTS);
                    QueuePair renewedServer = channels.channel("server", "the test").queuePair();
                    assertThat(renewedServer).isNotSameAs(server);
                    assertThat(server.isClosed()).isTrue();
                    assertThat(connections.listeners().getFirst().peers()).singleElement().satisfies(peer -> {
                        assertThat(peer.name()).isEqualTo("server");
                        assertThat(peer.qpState()).isEqualTo("RTS");
                        assertThat(peer.qpNumber()).isEqualTo(renewedServer.qpNumber());
                    });
                    assertThat(roundTrip(template, replies, "second")).isEqualTo("SECOND");
                });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    /** Simulated only: the prototype QP fails by fault injection. */
    @Test
    @SimulatedOnly
    void aPrototypeQueuePairThatCannotBeCreatedCostsOneTryAndAcceptingGoesOn() {
        // the first ibv_create_qp after the declared client QP is the listener's first prototype QP
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder().failQueuePairAfter(1);
        RdmaContextRunners.simulatedRunner("connected").withBean(ResourceLifecycleRecorder.class, () -> recorder)
                .withUserConfiguration(EchoConfiguration.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    RdmaConnections connections = context.getBean(RdmaConnections.class);
                    // the request that found no queue pair was rejected, and the client's next attempt accepted
                    assertThat(connections.outbound().getFirst().state()).isEqualTo(ConnectionState.UP);
                    assertThat(connections.outbound().getFirst().attempts()).isEqualTo(2);
                    // the client is UP once its rdma_connect returns; the listener's thread records the
                    // accepted peer a moment later
                    await().atMost(Duration.ofSeconds(5)).until(() -> !connections.listeners().getFirst().peers().isEmpty());
                    RdmaConnections.ListenerStatus listener = connections.listeners().getFirst();
                    assertThat(listener.lastFailure()).contains("echo-peer").contains("ibv_create_qp")
                            .contains("ENOMEM");
                    assertThat(listener.peers()).extracting(RdmaConnections.PeerStatus::name).containsExactly("echo#1");
                    assertThat(roundTrip(context.getBean(RdmaTemplate.class), context.getBean(Replies.class),
                            "still here")).isEqualTo("STILL HERE");
                });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    @Test
    void aRefusedConnectionFailsTheStartAfterItsRetriesNamingPropertyVerbAndErrno() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        // the declaration's connect timeout stays: each refusal (a REJ) ends its attempt at once, but under
        // emulation it can take longer than a short timeout to arrive, which would read as ETIMEDOUT
        RdmaContextRunners.runner("connected").withBean(ResourceLifecycleRecorder.class, () -> recorder)
                .withPropertyValues("rdma.connections.outbound.echo-client.port=7999",
                        "rdma.connections.outbound.echo-client.retries=2",
                        "rdma.connections.outbound.echo-client.backoff.initial=10ms").run(context -> {
                    assertThat(context).hasFailed();
                    RdmaConnectionException failure = RdmaContextRunners.cause(context.getStartupFailure(),
                            RdmaConnectionException.class);
                    assertThat(failure.property()).isEqualTo("rdma.connections.outbound.echo-client.host");
                    assertThat(failure.attempts()).isEqualTo(3);
                    assertThat(failure.verbsFailure()).hasValueSatisfying(verbs -> {
                        assertThat(verbs.verb()).isEqualTo("rdma_connect");
                        assertThat(verbs.errno()).isEqualTo(Errno.ECONNREFUSED);
                    });
                    FailureAnalysis analysis = new RdmaConnectionFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("'echo-client'")
                            .contains("rdma.connections.outbound.echo-client.host").contains(RdmaContextRunners.PEER_ADDRESS + ":7999")
                            .contains("Attempts: 3").contains("rdma_connect").contains("ECONNREFUSED");
                    assertThat(analysis.getAction()).contains("Start the listener")
                            .contains("rdma.connections.outbound.echo-client.host");
                });
        // a start that failed half-way, after every bean was created: all destroyed, in reverse
        assertThat(recorder.destroyedNames()).containsExactlyElementsOf(recorder.created().reversed());
        assertThat(recorder.destroyed()).allSatisfy(destruction -> assertThat(destruction.openDependents())
                .as("resources still open that depend on %s when it was destroyed", destruction.name()).isEmpty());
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    /**
     * An attempt refused after its queue pair was moved to INIT and its channel's receives posted
     * (the refusal answers the handshake) flushes the queue pair before the channel's followers
     * hear that it is down, as a teardown does: the receive container gives those buffers back to
     * the pool then, and an attempt that fails later in the handshake leaves the queue pair in RTR
     * or RTS, where the peer can still send into them.
     */
    @Test
    void aRefusedAttemptFlushesItsQueuePairBeforeItsChannelIsDown() {
        List<String> downs = new CopyOnWriteArrayList<>();
        RdmaContextRunners.runner("connected").withBean(DownStates.class, downs)
                .withPropertyValues("rdma.connections.outbound.echo-client.port=7999",
                        "rdma.connections.outbound.echo-client.retries=1",
                        "rdma.connections.outbound.echo-client.backoff.initial=10ms").run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(downs).as("the queue pair's state when each DOWN was told").isNotEmpty()
                            .allSatisfy(down -> assertThat(down).isEqualTo("client ERR"));
                });
    }

    @Test
    void listeningOnAPortAlreadyListenedOnNamesThePort() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        RdmaContextRunners.runner("connected").withBean(ResourceLifecycleRecorder.class, () -> recorder)
                // both on the peer address: a second wildcard bind of the port fails on rdma_cm with
                // EADDRNOTAVAIL, not EADDRINUSE (rdma-verbs/softroce/README.md)
                .withPropertyValues("rdma.connections.listeners.echo.address=" + RdmaContextRunners.PEER_ADDRESS,
                        "rdma.connections.listeners.again.address=" + RdmaContextRunners.PEER_ADDRESS,
                        "rdma.connections.listeners.again.port=7471",
                        "rdma.connections.listeners.again.queue-pair-prototype=echo-peer",
                        "rdma.connections.listeners.again.max-connections=1").run(context -> {
                    RdmaConnectionException failure = RdmaContextRunners.cause(context.getStartupFailure(),
                            RdmaConnectionException.class);
                    // whichever of the two binds second is refused
                    assertThat(failure.property()).isIn("rdma.connections.listeners.again.port",
                            "rdma.connections.listeners.echo.port");
                    assertThat(failure.verbsFailure().orElseThrow().errno()).isEqualTo(Errno.EADDRINUSE);
                    assertThat(new RdmaConnectionFailureAnalyzer().analyze(failure).getAction())
                            .contains("Choose another port");
                });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    @Test
    void aListenerNamesEitherAQueuePairOrAPrototype() {
        RdmaContextRunners.runner("connected").withPropertyValues("rdma.connections.listeners.echo.queue-pair=client")
                .run(context -> assertThat(RdmaContextRunners.cause(context.getStartupFailure(),
                        InvalidRdmaConfigurationException.class).property())
                        .isEqualTo("rdma.connections.listeners.echo"));
    }

    @Test
    void prototypePeersCountAgainstTheirCompletionQueue() {
        RdmaContextRunners.runner("connected").withPropertyValues("rdma.connections.listeners.echo.max-connections=8")
                .run(context -> {
                    InvalidRdmaConfigurationException failure = RdmaContextRunners.cause(context.getStartupFailure(),
                            InvalidRdmaConfigurationException.class);
                    assertThat(failure.property()).isEqualTo(RdmaContextRunners.DEVICE_PROPERTY + ".completion-queues.cq0.entries");
                    assertThat(failure.problem()).contains("8 x echo-peer").contains("288");
                });
    }

    @Test
    void onlyConnectedQueuePairTypesConnect() {
        RdmaContextRunners.runner("connected").withPropertyValues(
                RdmaContextRunners.DEVICE_PROPERTY + ".protection-domains.pd0.queue-pairs.client.type=ud").run(context -> {
                    InvalidRdmaConfigurationException failure = RdmaContextRunners.cause(context.getStartupFailure(),
                            InvalidRdmaConfigurationException.class);
                    assertThat(failure.property()).isEqualTo("rdma.connections.outbound.echo-client.queue-pair");
                    assertThat(failure.problem()).contains("UD");
                });
    }

    /** Sends {@code message} from queue pair "client" and waits for the reply. */
    private static String roundTrip(RdmaTemplate template, Replies replies, String message) throws Exception {
        template.send("client", message.getBytes(StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
        ReceivedMessage reply = replies.of("client").poll(5, TimeUnit.SECONDS);
        assertThat(reply).as("reply to " + message).isNotNull();
        return new String(reply.payload(), StandardCharsets.UTF_8);
    }

    /**
     * At the client's second UP, on the thread that connected it: its queue pair to ERR, and back
     * once the flush reached the connection's failure watch.
     */
    static final class FailingAtSecondUp {

        volatile boolean failedAtUp;
        private final AtomicInteger ups = new AtomicInteger();
        private final RdmaChannels channels;
        private final CompletionPollers pollers;

        FailingAtSecondUp(RdmaChannels channels, CompletionPollers pollers) {
            this.channels = channels;
            this.pollers = pollers;
        }

        @EventListener
        void changed(RdmaConnectionStateChangedEvent event) {
            if (event.newState() == ConnectionState.UP && event.queuePair().equals("client")
                    && ups.incrementAndGet() == 2) {
                channels.channel("client", "the test").queuePair().toError();
                pollers.awaitDelivered();
                failedAtUp = true;
            }
        }
    }

    /** The state of each connection's channel as its UP is published. */
    static final class ChannelStatesAtUp {

        final List<String> seen = new CopyOnWriteArrayList<>();
        private final RdmaChannels channels;

        ChannelStatesAtUp(RdmaChannels channels) {
            this.channels = channels;
        }

        @EventListener
        void changed(RdmaConnectionStateChangedEvent event) {
            if (event.newState() == ConnectionState.UP) {
                RdmaChannel channel = channels.get(event.queuePair());
                seen.add(event.queuePair() + " " + (channel == null ? "absent" : channel.state()));
            }
        }
    }

    /**
     * Records, for each DOWN the channels' followers hear of, the channel and the state its queue
     * pair is in then. A channel gone is left out: on iWARP, whose fresh queue pair reads as INIT
     * (siw's IDLE), the first attempt renews one that was never connected and holds no receives.
     */
    static final class DownStates {

        DownStates(List<String> downs, RdmaChannels channels) {
            channels.followAll(new ChannelFollower() {
                @Override
                public void up(RdmaChannel channel) {
                }

                @Override
                public void down(RdmaChannel channel) {
                    downs.add(channel.name() + " " + channel.queuePair().state());
                }

                @Override
                public void gone(RdmaChannel channel) {
                }
            });
        }
    }

    /** Takes 300 ms over each peer of listener 'echo' that comes up, before the followers of the listener's channels hear of it. */
    static final class SlowToFollowPeers {

        SlowToFollowPeers(RdmaChannels channels) {
            channels.followAll(new ChannelFollower() {
                @Override
                public void up(RdmaChannel channel) {
                    if (channel.source().equals("echo")) {
                        try {
                            Thread.sleep(300);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }

                @Override
                public void down(RdmaChannel channel) {
                }
            });
        }
    }

    /** Sends on each channel the moment it is up: "first" from the client, "welcome" to each peer. */
    static final class SendsWhenUp {

        final List<CompletableFuture<Void>> sends = new CopyOnWriteArrayList<>();
        private final RdmaTemplate template;

        SendsWhenUp(RdmaTemplate template) {
            this.template = template;
        }

        @EventListener
        void changed(RdmaConnectionStateChangedEvent event) {
            if (event.newState() == ConnectionState.UP) {
                String first = event.queuePair().equals("client") ? "first" : "welcome";
                sends.add(template.send(event.queuePair(), first.getBytes(StandardCharsets.UTF_8)));
            }
        }
    }

    /** Collects replies per client queue pair. */
    static final class Replies {

        private final Map<String, BlockingQueue<ReceivedMessage>> messages = new ConcurrentHashMap<>();

        BlockingQueue<ReceivedMessage> of(String queuePair) {
            return messages.computeIfAbsent(queuePair, key -> new LinkedBlockingQueue<>());
        }
    }

    static final class ClientReplies {

        private final Replies replies;

        ClientReplies(Replies replies) {
            this.replies = replies;
        }

        @RdmaListener(queuePair = "client")
        void client(ReceivedMessage message) {
            replies.of(message.queuePair()).add(message);
        }
    }

    static final class ThreeReplies {

        private final Replies replies;

        ThreeReplies(Replies replies) {
            this.replies = replies;
        }

        @RdmaListener(queuePair = "client1")
        void first(ReceivedMessage message) {
            replies.of(message.queuePair()).add(message);
        }

        @RdmaListener(queuePair = "client2")
        void second(ReceivedMessage message) {
            replies.of(message.queuePair()).add(message);
        }

        @RdmaListener(queuePair = "client3")
        void third(ReceivedMessage message) {
            replies.of(message.queuePair()).add(message);
        }
    }

    static final class EchoServer {
        @RdmaListener(connectionListener = "echo")
        byte[] echo(byte[] request) {
            return new String(request, StandardCharsets.UTF_8).toUpperCase().getBytes(StandardCharsets.UTF_8);
        }
    }

    static final class SinglePeerServer {
        @RdmaListener(queuePair = "server")
        byte[] echo(byte[] request) {
            return new String(request, StandardCharsets.UTF_8).toUpperCase().getBytes(StandardCharsets.UTF_8);
        }
    }

    static final class RpcServer {
        @RdmaListener(connectionListener = "rpc")
        byte[] echo(byte[] request) {
            return new String(request, StandardCharsets.UTF_8).toUpperCase().getBytes(StandardCharsets.UTF_8);
        }
    }

    /** What the client side of every echo test collects its replies with. */
    @Configuration(proxyBeanMethods = false)
    static class ClientRepliesConfiguration {

        @Bean
        Replies replies() {
            return new Replies();
        }

        @Bean
        ClientReplies clientReplies(Replies replies) {
            return new ClientReplies(replies);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import(ClientRepliesConfiguration.class)
    static class EchoConfiguration {

        @Bean
        EchoServer echoServer() {
            return new EchoServer();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import(ClientRepliesConfiguration.class)
    static class SinglePeerConfiguration {

        @Bean
        SinglePeerServer singlePeerServer() {
            return new SinglePeerServer();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ThreeClientsConfiguration {

        @Bean
        RpcServer rpcServer() {
            return new RpcServer();
        }

        @Bean
        Replies replies() {
            return new Replies();
        }

        @Bean
        ThreeReplies threeReplies(Replies replies) {
            return new ThreeReplies(replies);
        }
    }
}

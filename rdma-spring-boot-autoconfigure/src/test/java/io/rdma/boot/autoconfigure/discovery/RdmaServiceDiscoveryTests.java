package io.rdma.boot.autoconfigure.discovery;

import io.rdma.boot.autoconfigure.IwarpLack;
import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.boot.autoconfigure.ResourceLifecycleRecorder;
import io.rdma.boot.autoconfigure.SimulatedOnly;
import io.rdma.boot.autoconfigure.health.RdmaHealthContributorAutoConfiguration;
import io.rdma.boot.autoconfigure.health.RdmaHealthIndicator;
import io.rdma.boot.autoconfigure.metrics.RdmaMetricsAutoConfiguration;
import io.rdma.boot.autoconfigure.metrics.ServiceConnectionMetrics;
import io.rdma.boot.autoconfigure.resource.InvalidRdmaConfigurationException;
import io.rdma.spring.channel.ChannelState;
import io.rdma.spring.channel.RdmaChannel;
import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.connection.ConnectionState;
import io.rdma.spring.connection.NoServiceInstanceException;
import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.connection.RdmaServiceDiscovery;
import io.rdma.spring.connection.ServiceGroup;
import io.rdma.spring.listener.RdmaListener;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.spring.template.RdmaChannelDownException;
import io.rdma.spring.template.RdmaTemplate;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.GidEntry;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.ResourceClosedException;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.api.VerbsResource;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cloud.client.discovery.simple.InstanceProperties;
import org.springframework.cloud.client.discovery.event.HeartbeatEvent;
import org.springframework.cloud.client.discovery.event.InstancePreRegisteredEvent;
import org.springframework.cloud.client.discovery.simple.SimpleDiscoveryClientAutoConfiguration;
import org.springframework.cloud.client.discovery.simple.SimpleDiscoveryProperties;
import org.springframework.cloud.client.serviceregistry.Registration;
import org.springframework.cloud.commons.util.UtilAutoConfiguration;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Outbound connections to the instances of a service that Spring Cloud's simple discovery client
 * lists (a real discovery client, configured by properties, whose instances a test may change):
 * two listeners of the application stand for two instances of {@code kv-store}, each advertising
 * listener {@code kv} on its port. Written against the selected provider.
 */
class RdmaServiceDiscoveryTests {

    static final String SERVICE = "kv-store";
    /** The declaration's refresh interval: 1 s, longer where a handshake takes seconds (under emulation). */
    static final Duration REFRESH = Duration.parse("PT" + System.getProperty("rdma-test.refresh-interval", "1s"));
    static final long WAIT_SECONDS = 30;

    private static ApplicationContextRunner runner() {
        return RdmaContextRunners.runner("service-instances").withConfiguration(AutoConfigurations.of(
                        RdmaDiscoveryAutoConfiguration.class, SimpleDiscoveryClientAutoConfiguration.class,
                        UtilAutoConfiguration.class))
                .withUserConfiguration(Instances.class);
    }

    /**
     * Both instances get a connection on a queue pair of their own, named after them; an instance
     * that leaves the service has its connections and queue pairs (the client's, and the one its
     * listener accepted the client on) closed within twice the refresh interval, and nothing of the
     * other instance is; one that comes back is connected again.
     */
    @Test
    void connectionsFollowTheInstancesOfTheService() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        runner().withBean(ResourceLifecycleRecorder.class, () -> recorder).run(context -> {
            assertThat(context).hasNotFailed();
            RdmaConnections connections = context.getBean(RdmaConnections.class);
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            Instances instances = context.getBean(Instances.class);
            Verbs verbs = recorder.verbs();
            await(() -> connected(connections) == 2, "both instances connected");

            template.send("kv@a", bytes("to a")).get(WAIT_SECONDS, TimeUnit.SECONDS);
            template.send("kv@b", bytes("to b")).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(List.of(instances.take("instance-a"), instances.take("instance-b")))
                    .containsExactly("to a", "to b");
            DeviceContext device = context.getBean(DeviceContext.class);
            List<QueuePair> bothConnected = connectedQueuePairs(device);
            assertThat(bothConnected).as("each instance's client queue pair and its listener's peer").hasSize(4);
            int peerOfB = peerQueuePair(connections, "instance-b");
            long bothConnections = verbs.liveObjects().get(ResourceKind.CONNECTION);

            SimpleDiscoveryProperties simple = context.getBean(SimpleDiscoveryProperties.class);
            List<InstanceProperties> listed = new ArrayList<>(simple.getInstances().get(SERVICE));
            simple.getInstances().put(SERVICE, new ArrayList<>(listed.subList(0, 1)));
            long left = System.nanoTime();
            await(() -> bothConnected.stream().filter(QueuePair::isClosed).count() == 2, "b's queue pairs closed");
            assertThat(Duration.ofNanos(System.nanoTime() - left)).isLessThan(REFRESH.multipliedBy(2));
            assertThat(bothConnected).filteredOn(QueuePair::isClosed).extracting(QueuePair::qpNumber).contains(peerOfB);
            assertThat(connectedQueuePairs(device)).as("a's, as before").hasSize(2).isSubsetOf(bothConnected);
            assertThat(verbs.liveObjects().get(ResourceKind.CONNECTION)).isEqualTo(bothConnections - 2);
            RdmaConnections.ServiceStatus status = connections.services().getFirst();
            assertThat(status.known()).isOne();
            assertThat(status.instances()).extracting(RdmaConnections.OutboundStatus::name).containsExactly("kv@a");
            // a key's owner chosen just before b left: its call fails as b's channel GONE, not as a mistake
            assertThat(catchThrowable(() -> template.sendAndReceive("kv@b", bytes("b left")).get(WAIT_SECONDS,
                    TimeUnit.SECONDS))).cause().isInstanceOfSatisfying(RdmaChannelDownException.class,
                    gone -> assertThat(gone.state()).isEqualTo(ChannelState.GONE));

            simple.getInstances().put(SERVICE, listed);
            context.publishEvent(new HeartbeatEvent(this, "changed"));
            await(() -> connected(connections) == 2, "b connected again");
            template.send("kv@b", bytes("b again")).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(instances.take("instance-b")).isEqualTo("b again");
            await(() -> connectedQueuePairs(device).size() == 4, "b's queue pairs again");
        });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    /**
     * An instance's connection whose queue pair failed is made again on a fresh queue pair of the
     * prototype, as librdmacm makes one per connection (iWARP cannot reset a failed queue pair, and
     * a listener's connection manager may still hold the old connection of a queue pair number):
     * the channel keeps its name and comes UP on the new queue pair, the failed one is closed, and
     * messages and the listener's replies go through the new one.
     */
    @Test
    void aFailedInstanceConnectionIsMadeAgainOnAFreshQueuePair() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        runner().withBean(ResourceLifecycleRecorder.class, () -> recorder).run(context -> {
            assertThat(context).hasNotFailed();
            RdmaConnections connections = context.getBean(RdmaConnections.class);
            RdmaChannels channels = context.getBean(RdmaChannels.class);
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            Instances instances = context.getBean(Instances.class);
            await(() -> connected(connections) == 2, "both instances connected");
            RdmaChannel first = channels.channel("kv@a", "the test");
            QueuePair used = first.queuePair();

            // No event tells of the move to ERR: a send posted then is what the failure shows in (its
            // flush on InfiniBand transport; on iWARP the connection's end, the send possibly through first)
            used.toError();
            catchThrowable(() -> template.send("kv@a", bytes("after the failure")).get(WAIT_SECONDS, TimeUnit.SECONDS));
            await(() -> {
                RdmaChannel now = channels.get("kv@a");
                return now != null && now != first && now.state() == ChannelState.UP;
            }, "a connected again");

            RdmaChannel renewed = channels.channel("kv@a", "the test");
            assertThat(renewed.queuePair()).isNotSameAs(used);
            assertThat(renewed.queuePair().qpNumber()).isNotEqualTo(used.qpNumber());
            assertThat(used.isClosed()).as("the failed queue pair").isTrue();
            assertThat(first.state()).isEqualTo(ChannelState.GONE);
            assertThat(connections.services().getFirst().instances()).filteredOn(status -> status.name().equals("kv@a"))
                    .singleElement().satisfies(status -> {
                        assertThat(status.state()).isEqualTo(ConnectionState.UP);
                        assertThat(status.attempts()).isEqualTo(2);
                    });
            template.send("kv@a", bytes("ping again")).get(WAIT_SECONDS, TimeUnit.SECONDS);
            String received = instances.take("instance-a");
            if (received.equals("after the failure")) {
                // the flushed receives told of the failure, and the reconnection came before that send
                received = instances.take("instance-a");
            }
            assertThat(received).isEqualTo("ping again");
            assertThat(instances.replies.poll(WAIT_SECONDS, TimeUnit.SECONDS)).as("the listener's reply, received on"
                    + " the fresh queue pair").isEqualTo("pong from instance-a");
        });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    /** Health names each service with the instances known, connected and failing; a gauge counts them. */
    @Test
    void healthAndMetricsShowEachServicesInstances() {
        runner().withConfiguration(AutoConfigurations.of(RdmaMetricsAutoConfiguration.class,
                RdmaHealthContributorAutoConfiguration.class)).run(context -> {
            RdmaConnections connections = context.getBean(RdmaConnections.class);
            await(() -> connected(connections) == 2, "both instances connected");
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            context.getBean(ServiceConnectionMetrics.class).bindTo(registry);
            assertThat(registry.get("rdma.service.instances").tags("service", SERVICE, "state", "connected").gauge()
                    .value()).isEqualTo(2);
            assertThat(registry.get("rdma.service.instances").tags("connection", "kv", "state", "known").gauge()
                    .value()).isEqualTo(2);
            Health health = context.getBean(RdmaHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails().get("services")).isEqualTo(Map.of("kv",
                    Map.of("service", SERVICE, "known", 2, "connected", 2L, "failing", 0L)));
            RdmaConnections.ServiceStatus status = connections.services().getFirst();
            assertThat(status.service()).isEqualTo(SERVICE);
            assertThat(status.known()).isEqualTo(2);
            assertThat(status.instances()).extracting(RdmaConnections.OutboundStatus::state)
                    .containsOnly(ConnectionState.UP);
            assertThat(status.lastFailure()).isNull();
        });
    }

    /**
     * The service's instances as one addressee: each in turn, all, or the one a key maps to, which
     * stays the same while that instance stays; replies come back to an {@code @RdmaListener} on
     * the service connection, from whichever instance answers.
     */
    @Test
    void theTemplateAddressesTheServiceAsAGroupAndItsRepliesReachTheListener() {
        runner().run(context -> {
            RdmaConnections connections = context.getBean(RdmaConnections.class);
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            Instances instances = context.getBean(Instances.class);
            ServiceGroup kv = connections.group("kv");
            // a connection is UP a moment before its channel: the group gives a channel once it is UP
            await(() -> connected(connections) == 2 && kv.all().size() == 2, "both instances connected");

            assertThat(kv.all()).containsExactly("kv@a", "kv@b");
            List<String> turns = List.of(kv.any(), kv.any(), kv.any());
            assertThat(turns.get(0)).as("in turn").isNotEqualTo(turns.get(1)).isEqualTo(turns.get(2));
            Map<String, String> owners = new HashMap<>();
            for (int key = 0; key < 64; key++) {
                owners.put("key-" + key, kv.forKey("key-" + key));
            }
            assertThat(owners.values()).as("keys spread over both instances").contains("kv@a", "kv@b");
            owners.forEach((key, owner) -> assertThat(kv.forKey(key)).isEqualTo(owner));

            template.send(kv.forKey("key-1"), bytes("ping key-1")).get(WAIT_SECONDS, TimeUnit.SECONDS);
            String instance = owners.get("key-1").equals("kv@a") ? "instance-a" : "instance-b";
            assertThat(instances.take(instance)).isEqualTo("ping key-1");
            assertThat(instances.replies.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("pong from " + instance);

            SimpleDiscoveryProperties simple = context.getBean(SimpleDiscoveryProperties.class);
            simple.getInstances().put(SERVICE, new ArrayList<>(simple.getInstances().get(SERVICE).subList(0, 1)));
            context.publishEvent(new HeartbeatEvent(this, "changed"));
            await(() -> kv.all().equals(List.of("kv@a")), "only a left");
            owners.forEach((key, owner) -> {
                if (owner.equals("kv@a")) {
                    assertThat(kv.forKey(key)).as("a key of an instance that stays keeps it").isEqualTo("kv@a");
                }
            });
            simple.getInstances().put(SERVICE, new ArrayList<>());
            context.publishEvent(new HeartbeatEvent(this, "changed"));
            await(() -> kv.all().isEmpty(), "none left");
            assertThatThrownBy(kv::any).isInstanceOf(NoServiceInstanceException.class).hasMessageContaining(SERVICE);
        });
    }

    /** An instance that advertises no port for the listener is no RDMA peer: nothing is made for it. */
    @Test
    void anInstanceThatAdvertisesNoListenerIsLeftOut() {
        runner().run(context -> {
                    RdmaConnections connections = context.getBean(RdmaConnections.class);
                    await(() -> connected(connections) == 2, "both instances connected");
                    context.getBean(SimpleDiscoveryProperties.class).getInstances().get(SERVICE).get(1).getMetadata()
                            .remove("rdma.listener.kv.port");
                    context.publishEvent(new HeartbeatEvent(this, "changed"));
                    await(() -> connections.services().getFirst().instances().size() == 1, "only a");
                    assertThat(connections.services().getFirst().known()).isOne();
                });
    }

    /**
     * At registration, the instance's metadata gets each listener's port, device, GID and address:
     * bound to 0.0.0.0, the address is the IPv4 of a RoCE GID of the device's port, the address a
     * client's rdma_cm resolves to that device, whatever address the registry knows the host by.
     */
    @Test
    void theRegistrationAdvertisesTheListeners() {
        RdmaContextRunners.assumeInfinibandTransport(IwarpLack.IPV4_GID);
        runner().run(context -> {
            Registration registration = new TestRegistration();
            context.publishEvent(new InstancePreRegisteredEvent(this, registration));
            Map<String, String> metadata = registration.getMetadata();
            assertThat(metadata)
                    .containsEntry(RdmaListenerMetadata.key("instance-a", "port"), "7481")
                    .containsEntry(RdmaListenerMetadata.key("instance-b", "port"), "7482")
                    .containsEntry(RdmaListenerMetadata.key("instance-a", "device"), RdmaContextRunners.DEVICE);
            RdmaResources resources = context.getBean(RdmaResources.class);
            DeviceContext device = (DeviceContext) resources.resource(RdmaContextRunners.DEVICE).orElseThrow().resource();
            int port = resources.configuredPorts(RdmaContextRunners.DEVICE).getFirst();
            List<String> ipv4Gids = device.queryGidTable(port).stream().filter(GidEntry::isIpv4)
                    .map(entry -> entry.gid().ipv4Address().orElseThrow()).toList();
            assertThat(ipv4Gids).as("IPv4 GIDs of the port").isNotEmpty()
                    .contains(metadata.get(RdmaListenerMetadata.key("instance-a", "address")));
            assertThat(metadata.get(RdmaListenerMetadata.key("instance-a", "gid")))
                    .isEqualTo("::ffff:" + metadata.get(RdmaListenerMetadata.key("instance-a", "address")));
        });
    }

    /**
     * A registration may have no metadata at all ({@code getMetadata()} is nullable in Spring Cloud):
     * its registering goes on, and the listeners are reported as not advertised.
     */
    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void aRegistrationWithoutMetadataIsRegisteredWithoutTheListeners(CapturedOutput output) {
        runner().run(context -> {
            assertThatCode(() -> context.publishEvent(new InstancePreRegisteredEvent(this, new TestRegistration(null))))
                    .doesNotThrowAnyException();
            assertThat(output).contains("The RDMA listeners are not advertised: " + TestRegistration.class.getName());
        });
    }

    /** Without a discovery client, a connection that names a service fails the start, saying what to add. */
    @Test
    void withoutADiscoveryClientTheStartFailsNamingTheProperty() {
        RdmaContextRunners.runner("service-instances").withUserConfiguration(Instances.class).run(context -> {
            InvalidRdmaConfigurationException failure = invalid(context.getStartupFailure());
            assertThat(failure.property()).isEqualTo("rdma.connections.outbound.kv.service");
            assertThat(failure.action()).contains("discovery client");
        });
    }

    /**
     * Without Spring Cloud Commons on the class path nothing of discovery applies: an application
     * whose connections name hosts starts as before, and one that names a service fails the start
     * naming the property.
     */
    @Test
    void withoutSpringCloudCommonsNothingOfDiscoveryApplies() {
        FilteredClassLoader withoutSpringCloud = new FilteredClassLoader("org.springframework.cloud");
        RdmaContextRunners.runner("connected").withClassLoader(withoutSpringCloud)
                .withConfiguration(AutoConfigurations.of(RdmaDiscoveryAutoConfiguration.class,
                        RdmaLoadBalancerAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(RdmaServiceDiscovery.class)
                            .doesNotHaveBean(RegistrationMetadata.class);
                    assertThat(context.getBean(RdmaConnections.class).services()).isEmpty();
                });
        RdmaContextRunners.runner("service-instances").withClassLoader(withoutSpringCloud)
                .withConfiguration(AutoConfigurations.of(RdmaDiscoveryAutoConfiguration.class,
                        RdmaLoadBalancerAutoConfiguration.class))
                .withUserConfiguration(Instances.class).run(context -> assertThat(
                        invalid(context.getStartupFailure()).property()).isEqualTo("rdma.connections.outbound.kv.service"));
    }

    /** A service's connection names no host or queue pair of its own. */
    @Test
    void aServiceConnectionWithAHostIsRefused() {
        runner().withPropertyValues("rdma.connections.outbound.kv.host=10.0.0.1").run(context -> {
            assertThat(invalid(context.getStartupFailure()).property()).isEqualTo("rdma.connections.outbound.kv.service");
        });
    }

    /** max-instances is counted against max_qp at plan time, like a listener's max-connections. */
    @Test
    @SimulatedOnly
    void maxInstancesAboveMaxQpIsRefusedAtPlanTime() {
        RdmaContextRunners.simulatedRunner("service-instances").withConfiguration(AutoConfigurations.of(
                        RdmaDiscoveryAutoConfiguration.class, SimpleDiscoveryClientAutoConfiguration.class,
                        UtilAutoConfiguration.class)).withUserConfiguration(Instances.class)
                .withPropertyValues("rdma.simulated.devices.sim0.max-qp=6").run(context -> {
                    InvalidRdmaConfigurationException failure = invalid(context.getStartupFailure());
                    assertThat(failure.property()).isEqualTo("rdma.connections.outbound.kv.max-instances");
                    assertThat(failure.problem()).contains("max_qp");
                    assertThat(failure.action()).startsWith("Set max-instances to at most 2");
                });
    }

    static InvalidRdmaConfigurationException invalid(Throwable startupFailure) {
        for (Throwable cause = startupFailure; cause != null; cause = cause.getCause()) {
            if (cause instanceof InvalidRdmaConfigurationException invalid) {
                return invalid;
            }
        }
        throw new AssertionError("the start failed otherwise", startupFailure);
    }

    /**
     * The open queue pairs of {@code device} that a connection moved past RESET. Not the census of
     * queue pairs: a listener makes the queue pair for its next peer after it admitted a peer, on
     * its own thread, so that count may still grow after the peer has exchanged messages, and a
     * count taken then as a baseline is one short for good; the queue pair for the next peer
     * waits in RESET.
     */
    static List<QueuePair> connectedQueuePairs(DeviceContext device) {
        Set<QueuePair> found = new LinkedHashSet<>();
        Deque<VerbsResource> pending = new ArrayDeque<>(device.dependents());
        while (!pending.isEmpty()) {
            VerbsResource resource = pending.pop();
            if (resource instanceof QueuePair qp && isPastReset(qp)) {
                found.add(qp);
            }
            pending.addAll(resource.dependents());
        }
        return List.copyOf(found);
    }

    /** False for a queue pair closed meanwhile: this runs while connections come and go. */
    private static boolean isPastReset(QueuePair qp) {
        try {
            return qp.state() != QueuePairState.RESET;
        } catch (ResourceClosedException e) {
            return false;
        }
    }

    /** The QP number of the peer listener {@code listener} has (it has one). */
    static int peerQueuePair(RdmaConnections connections, String listener) {
        return connections.listeners().stream().filter(status -> status.name().equals(listener)).findFirst()
                .orElseThrow().peers().getFirst().qpNumber();
    }

    static long connected(RdmaConnections connections) {
        return connections.services().getFirst().connected();
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + WAIT_SECONDS + " s: " + what);
            }
            Thread.sleep(10);
        }
    }

    /** What each instance's listener received. */
    @Configuration(proxyBeanMethods = false)
    static class Instances {

        private final Map<String, BlockingQueue<String>> received = new HashMap<>();

        Instances() {
            received.put("instance-a", new LinkedBlockingQueue<>());
            received.put("instance-b", new LinkedBlockingQueue<>());
        }

        final BlockingQueue<String> replies = new LinkedBlockingQueue<>();

        /** Answers pings with a pong naming the instance. */
        @RdmaListener(connectionListener = "instance-a")
        byte @Nullable [] a(byte[] message) {
            return receive("instance-a", message);
        }

        @RdmaListener(connectionListener = "instance-b")
        byte @Nullable [] b(byte[] message) {
            return receive("instance-b", message);
        }

        /** What the instances answer, on the client's queue pairs of the service. */
        @RdmaListener(serviceConnection = "kv")
        void reply(byte[] message) {
            replies.add(new String(message, StandardCharsets.UTF_8));
        }

        private byte @Nullable [] receive(String instance, byte[] message) {
            String text = new String(message, StandardCharsets.UTF_8);
            received.get(instance).add(text);
            return text.startsWith("ping") ? bytes("pong from " + instance) : null;
        }

        String take(String instance) throws InterruptedException {
            String message = received.get(instance).poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(message).as("a message at %s", instance).isNotNull();
            return message;
        }
    }

    /** A registration as a service registry hands it to its listeners before registering. */
    private static final class TestRegistration implements Registration {

        private final @Nullable Map<String, String> metadata;

        TestRegistration() {
            this(new HashMap<>());
        }

        TestRegistration(@Nullable Map<String, String> metadata) {
            this.metadata = metadata;
        }

        @Override
        public String getServiceId() {
            return SERVICE;
        }

        @Override
        public String getHost() {
            return "localhost";
        }

        @Override
        public int getPort() {
            return 8080;
        }

        @Override
        public boolean isSecure() {
            return false;
        }

        @Override
        public URI getUri() {
            return URI.create("http://localhost:8080");
        }

        @Override
        public @Nullable Map<String, String> getMetadata() {
            return metadata;
        }
    }
}

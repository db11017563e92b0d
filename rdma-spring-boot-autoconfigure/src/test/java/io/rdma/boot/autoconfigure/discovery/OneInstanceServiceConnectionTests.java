package io.rdma.boot.autoconfigure.discovery;

import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.boot.autoconfigure.ResourceLifecycleRecorder;
import io.rdma.boot.autoconfigure.SimulatedOnly;
import io.rdma.boot.autoconfigure.discovery.RdmaServiceDiscoveryTests.Instances;
import io.rdma.boot.autoconfigure.health.RdmaHealthContributorAutoConfiguration;
import io.rdma.boot.autoconfigure.health.RdmaHealthIndicator;
import io.rdma.boot.autoconfigure.metrics.RdmaMetricsAutoConfiguration;
import io.rdma.boot.autoconfigure.metrics.ServiceConnectionMetrics;
import io.rdma.boot.autoconfigure.resource.InvalidRdmaConfigurationException;
import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.spring.connection.ConnectionState;
import io.rdma.spring.connection.NoServiceInstanceException;
import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.connection.RdmaInstanceChooser;
import io.rdma.spring.connection.ServiceGroup;
import io.rdma.spring.template.RdmaTemplate;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairState;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.client.discovery.event.HeartbeatEvent;
import org.springframework.cloud.client.discovery.simple.InstanceProperties;
import org.springframework.cloud.client.discovery.simple.SimpleDiscoveryClientAutoConfiguration;
import org.springframework.cloud.client.discovery.simple.SimpleDiscoveryProperties;
import org.springframework.cloud.commons.util.UtilAutoConfiguration;
import org.springframework.cloud.loadbalancer.config.BlockingLoadBalancerClientAutoConfiguration;
import org.springframework.cloud.loadbalancer.config.LoadBalancerAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;

import static io.rdma.boot.autoconfigure.discovery.RdmaServiceDiscoveryTests.REFRESH;
import static io.rdma.boot.autoconfigure.discovery.RdmaServiceDiscoveryTests.SERVICE;
import static io.rdma.boot.autoconfigure.discovery.RdmaServiceDiscoveryTests.WAIT_SECONDS;
import static io.rdma.boot.autoconfigure.discovery.RdmaServiceDiscoveryTests.await;
import static io.rdma.boot.autoconfigure.discovery.RdmaServiceDiscoveryTests.bytes;
import static io.rdma.boot.autoconfigure.discovery.RdmaServiceDiscoveryTests.connected;
import static io.rdma.boot.autoconfigure.discovery.RdmaServiceDiscoveryTests.connectedQueuePairs;
import static io.rdma.boot.autoconfigure.discovery.RdmaServiceDiscoveryTests.invalid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An outbound connection to one instance of a service at a time, on a declared queue pair
 * ({@code service} with {@code queue-pair}): the two listeners of {@link RdmaServiceDiscoveryTests}
 * stand for instances {@code a} and {@code b} of {@code kv-store} in Spring Cloud's simple
 * discovery client, and connection {@code kv} runs on declared queue pair {@code kv-client}.
 * Written against the selected provider.
 */
class OneInstanceServiceConnectionTests {

    private static final String QUEUE_PAIR = "kv-client";
    private static final String CONNECTION = "rdma.connections.outbound.kv";

    private static ApplicationContextRunner runner() {
        return RdmaContextRunners.runner("service-one-instance").withConfiguration(AutoConfigurations.of(
                        RdmaDiscoveryAutoConfiguration.class, RdmaLoadBalancerAutoConfiguration.class,
                        SimpleDiscoveryClientAutoConfiguration.class, UtilAutoConfiguration.class))
                .withUserConfiguration(Instances.class);
    }

    /**
     * With Spring Cloud LoadBalancer's own auto-configuration: its default configuration for each
     * service, round robin over the instances the discovery client lists, from a random start.
     */
    private static ApplicationContextRunner loadBalanced() {
        return runner().withConfiguration(AutoConfigurations.of(LoadBalancerAutoConfiguration.class,
                BlockingLoadBalancerClientAutoConfiguration.class));
    }

    /**
     * LoadBalancer chooses one of the two instances, and only that one is connected, on the
     * declared queue pair, which the group gives and an {@code @RdmaListener} on the connection
     * receives on. When the chosen instance leaves the service, the other is connected on the same
     * queue pair within twice the refresh interval, and what is sent through the group reaches it;
     * no queue pair is added or lost by the change, and none is left when the context closes.
     */
    @Test
    void loadBalancerChoosesTheInstanceAndAnotherWhenItLeaves() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        loadBalanced().withBean(ResourceLifecycleRecorder.class, () -> recorder).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(RdmaInstanceChooser.class)).isInstanceOf(LoadBalancerInstanceChooser.class);
            RdmaConnections connections = context.getBean(RdmaConnections.class);
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            Instances instances = context.getBean(Instances.class);
            QueuePair declared = context.getBean(QUEUE_PAIR, QueuePair.class);
            ServiceGroup kv = connections.group("kv");
            // the group has the queue pair once its observers were told, just after the connection said UP
            await(() -> connected(connections) == 1 && !kv.all().isEmpty(), "one instance connected");
            RdmaConnections.ServiceStatus status = connections.services().getFirst();
            assertThat(status.known()).isEqualTo(2);
            assertThat(status.instances()).singleElement().satisfies(instance -> {
                assertThat(instance.queuePair()).isEqualTo(QUEUE_PAIR);
                assertThat(instance.state()).isEqualTo(ConnectionState.UP);
            });
            assertThat(kv.all()).containsExactly(QUEUE_PAIR);
            assertThat(kv.forKey("some key")).isEqualTo(QUEUE_PAIR);
            String chosen = chosenInstance(connections);
            template.send(kv.any(), bytes("ping")).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(instances.take(listenerOf(chosen))).isEqualTo("ping");
            assertThat(instances.replies.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("pong from " + listenerOf(chosen));
            DeviceContext device = context.getBean(DeviceContext.class);
            List<QueuePair> connectedBefore = connectedQueuePairs(device);
            assertThat(connectedBefore).as("the declared queue pair and the chosen listener's peer").hasSize(2);

            String other = chosen.equals("a") ? "b" : "a";
            list(context, instance -> instance.getInstanceId().equals(other));
            long left = System.nanoTime();
            context.publishEvent(new HeartbeatEvent(this, "changed"));
            await(() -> connected(connections) == 1 && chosenInstance(connections).equals(other)
                    && !kv.all().isEmpty(), "instance " + other + " connected instead");
            assertThat(Duration.ofNanos(System.nanoTime() - left)).isLessThan(REFRESH.multipliedBy(2));
            assertThat(connections.services().getFirst().instances()).singleElement()
                    .extracting(RdmaConnections.OutboundStatus::queuePair).isEqualTo(QUEUE_PAIR);
            assertThat(kv.all()).containsExactly(QUEUE_PAIR);
            // connected on a queue pair made anew from the declaration: the bean, which the first was, is closed
            QueuePair renewed = context.getBean(RdmaChannels.class).channel(QUEUE_PAIR, "the test").queuePair();
            assertThat(renewed).isNotSameAs(declared);
            assertThat(renewed.state()).isEqualTo(QueuePairState.RTS);
            assertThat(declared.isClosed()).isTrue();
            assertThat(context.getBean(RdmaResources.class).resource(QUEUE_PAIR).orElseThrow().resource())
                    .as("what the declared name finds now").isSameAs(renewed);
            template.send(kv.any(), bytes("ping again")).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(instances.take(listenerOf(other))).isEqualTo("ping again");
            assertThat(instances.replies.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("pong from " + listenerOf(other));
            // the departed instance's peer queue pair is closed, and the declared one made anew; as many as before
            await(() -> connectedBefore.stream().allMatch(QueuePair::isClosed) && connectedQueuePairs(device).size() == 2,
                    "as many connected queue pairs as before, none of them those before");
            assertThat(connectedQueuePairs(device)).doesNotContainAnyElementsOf(connectedBefore).contains(renewed);
        });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    /**
     * While the discovery client lists no instance nothing is connected, the group has none to
     * give, and health and the gauge show none known; once one is listed again it is connected.
     */
    @Test
    void withNoInstanceListedTheConnectionWaits() {
        loadBalanced().withConfiguration(AutoConfigurations.of(RdmaMetricsAutoConfiguration.class,
                RdmaHealthContributorAutoConfiguration.class)).run(context -> {
            RdmaConnections connections = context.getBean(RdmaConnections.class);
            ServiceGroup kv = connections.group("kv");
            await(() -> connected(connections) == 1, "one instance connected");
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            context.getBean(ServiceConnectionMetrics.class).bindTo(registry);
            assertThat(instanceGauge(registry, "known")).isEqualTo(2);
            assertThat(instanceGauge(registry, "connected")).isEqualTo(1);
            assertThat(serviceHealth(context)).isEqualTo(Map.of("kv",
                    Map.of("service", SERVICE, "known", 2, "connected", 1L, "failing", 0L)));

            List<InstanceProperties> listed = list(context, instance -> false);
            context.publishEvent(new HeartbeatEvent(this, "changed"));
            // the group lets go of the queue pair once the departed instance's connection is closed
            await(() -> connections.services().getFirst().known() == 0 && connected(connections) == 0
                    && kv.all().isEmpty(), "none known");
            assertThat(connections.services().getFirst().instances()).isEmpty();
            assertThatThrownBy(kv::any).isInstanceOf(NoServiceInstanceException.class).hasMessageContaining(SERVICE);
            assertThat(instanceGauge(registry, "known")).isZero();
            assertThat(instanceGauge(registry, "connected")).isZero();
            assertThat(context.getBean(RdmaHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
            assertThat(serviceHealth(context)).isEqualTo(Map.of("kv",
                    Map.of("service", SERVICE, "known", 0, "connected", 0L, "failing", 0L)));

            context.getBean(SimpleDiscoveryProperties.class).getInstances().put(SERVICE, listed);
            context.publishEvent(new HeartbeatEvent(this, "changed"));
            await(() -> connected(connections) == 1 && !kv.all().isEmpty(), "an instance connected again");
            assertThat(kv.any()).isEqualTo(QUEUE_PAIR);
        });
    }

    /**
     * Without LoadBalancer the first instance listed is chosen; an application's
     * {@link RdmaInstanceChooser} bean chooses instead.
     */
    @Test
    void withoutLoadBalancerTheFirstListedOrTheApplicationsChooserDecides() {
        runner().run(context -> {
            RdmaConnections connections = context.getBean(RdmaConnections.class);
            await(() -> connected(connections) == 1, "one instance connected");
            assertThat(chosenInstance(connections)).isEqualTo("a");
        });
        runner().withBean(RdmaInstanceChooser.class, () -> (service, endpoints) -> endpoints.getLast()).run(context -> {
            RdmaConnections connections = context.getBean(RdmaConnections.class);
            await(() -> connected(connections) == 1, "one instance connected");
            assertThat(chosenInstance(connections)).isEqualTo("b");
        });
    }

    /** What belongs to a connection to every instance, or names a claimed queue pair, fails the start. */
    @Test
    void invalidCombinationsAreRefusedAtStartNamingTheProperty() {
        assertRefused(CONNECTION + ".queue-pair-prototype", "Remove queue-pair-prototype",
                CONNECTION + ".queue-pair-prototype=server-peer");
        assertRefused(CONNECTION + ".max-instances", "Remove max-instances", CONNECTION + ".max-instances=2");
        assertRefused("rdma.connections.outbound.kv2.queue-pair-prototype", "Set queue-pair-prototype",
                "rdma.connections.outbound.kv2.service=" + SERVICE, "rdma.connections.outbound.kv2.listener=kv");
        runner().withPropertyValues("rdma.connections.outbound.kv2.queue-pair=" + QUEUE_PAIR,
                "rdma.connections.outbound.kv2.host=10.0.0.1").run(context -> {
            // whichever of the two is read second finds the queue pair taken
            InvalidRdmaConfigurationException failure = invalid(context.getStartupFailure());
            assertThat(failure.property()).isIn(CONNECTION + ".queue-pair", "rdma.connections.outbound.kv2.queue-pair");
            assertThat(failure.problem()).contains("'" + QUEUE_PAIR + "' is already brought up by");
        });
        assertRefused("rdma.connections.outbound.kv2.max-instances", "Set service",
                "rdma.connections.outbound.kv2.queue-pair=" + QUEUE_PAIR, "rdma.connections.outbound.kv2.host=10.0.0.1",
                "rdma.connections.outbound.kv2.max-instances=2");
    }

    /**
     * At plan time the connection counts its declared queue pair only: the device holds it and
     * the listeners' peers (1 + 2 + 2), where max-instances' default of 8 would not fit.
     */
    @Test
    @SimulatedOnly
    void theDeclaredQueuePairIsAllThatCountsAgainstMaxQp() {
        RdmaContextRunners.simulatedRunner("service-one-instance").withConfiguration(AutoConfigurations.of(
                        RdmaDiscoveryAutoConfiguration.class, SimpleDiscoveryClientAutoConfiguration.class,
                        UtilAutoConfiguration.class)).withUserConfiguration(Instances.class)
                .withPropertyValues("rdma.simulated.devices.sim0.max-qp=5")
                .run(context -> assertThat(context).hasNotFailed());
    }

    private static void assertRefused(String property, String action, String... values) {
        runner().withPropertyValues(values).run(context -> {
            InvalidRdmaConfigurationException failure = invalid(context.getStartupFailure());
            assertThat(failure.property()).isEqualTo(property);
            assertThat(failure.action()).contains(action);
        });
    }

    /** Lists only the instances of kv-store that {@code kept} keeps; returns those listed before. */
    private static List<InstanceProperties> list(ConfigurableApplicationContext context,
                                                 Predicate<InstanceProperties> kept) {
        Map<String, List<InstanceProperties>> instances = context.getBean(SimpleDiscoveryProperties.class)
                .getInstances();
        List<InstanceProperties> listed = new ArrayList<>(instances.get(SERVICE));
        instances.put(SERVICE, new ArrayList<>(listed.stream().filter(kept).toList()));
        return listed;
    }

    /** The id of the instance chosen, from its connection's name, kv@id; empty while there is none. */
    private static String chosenInstance(RdmaConnections connections) {
        return connections.services().getFirst().instances().stream().map(RdmaConnections.OutboundStatus::name)
                .map(name -> name.substring(name.indexOf('@') + 1)).findFirst().orElse("");
    }

    private static String listenerOf(String instance) {
        return "instance-" + instance;
    }

    private static double instanceGauge(SimpleMeterRegistry registry, String state) {
        return registry.get("rdma.service.instances").tags("connection", "kv", "service", SERVICE, "state", state)
                .gauge().value();
    }

    private static Object serviceHealth(ConfigurableApplicationContext context) {
        Health health = context.getBean(RdmaHealthIndicator.class).health();
        return health.getDetails().get("services");
    }
}

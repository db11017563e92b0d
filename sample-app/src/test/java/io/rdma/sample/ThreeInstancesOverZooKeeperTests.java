package io.rdma.sample;

import io.rdma.spring.connection.RdmaConnections;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.Verbs;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import com.jayway.jsonpath.JsonPath;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three instances of the sample, each a Spring application of its own in this JVM, registered in
 * a real ZooKeeper (Curator's in-process {@link TestingServer}) through Spring Cloud Zookeeper,
 * finding one another there (profile {@code zookeeper}): no instance's address is in any
 * configuration. They run on the provider the system properties select: on the simulated fabric
 * they join one fabric ({@code rdma.simulated.fabric}), each a host with an address of its own;
 * on rxe0 ({@code -Drdma.provider=native}, in the Soft-RoCE guest) they share the device. Their
 * listeners take ports of their own (port 0), so that three fit on one host; the ports they got
 * reach the others through the registry. Each step checks the connections, health and the census
 * of verbs objects of every instance; an instance that leaves is closed on the others within
 * twice the sample's refresh interval, and their census returns to what it was without it.
 */
class ThreeInstancesOverZooKeeperTests {

    /** The sample's refresh-interval: how often each instance reads the service's instances again. */
    private static final Duration REFRESH = Duration.ofSeconds(5);
    /** The sample's connections to the service, and how many instances each connects to at most. */
    private static final Map<String, Integer> CONNECTIONS = Map.of("echo-client", 1, "kv-client", Integer.MAX_VALUE);
    private static final long WAIT_SECONDS = Long.getLong("sample-test.cluster-wait-seconds", 60);

    private static TestingServer zookeeper;

    private final HttpClient http = HttpClient.newHttpClient();
    private final List<ConfigurableApplicationContext> started = new ArrayList<>();

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zookeeper = new TestingServer();
    }

    @AfterAll
    static void stopZooKeeper() throws IOException {
        zookeeper.close();
    }

    @AfterEach
    void closeInstances() {
        started.forEach(ConfigurableApplicationContext::close);
    }

    @Test
    void instancesFindEachOtherLoseOneAndRegainIt() throws Exception {
        ConfigurableApplicationContext a = start();
        ConfigurableApplicationContext b = start();
        awaitEveryInstanceConnectedTo(2, a, b);
        Map<ResourceKind, Long> censusOfA = census(a);
        Map<ResourceKind, Long> censusOfB = census(b);

        ConfigurableApplicationContext c = start();
        awaitEveryInstanceConnectedTo(3, a, b, c);
        for (ConfigurableApplicationContext instance : List.of(a, b, c)) {
            assertHealthShows(instance, 3);
        }
        assertThat(census(a).get(ResourceKind.QUEUE_PAIR)).as("A's queue pairs with C")
                .isGreaterThan(censusOfA.get(ResourceKind.QUEUE_PAIR));
        assertKeysAreSharedAndReadEverywhere("first", a, b, c);
        assertEchoAnswers(a, b, c);

        Verbs verbsOfC = c.getBean(Verbs.class);
        close(c);
        // From the end of C's close, not its start: how long C's own shutdown takes is no property of
        // A and B (under emulation, beside another guest, it took seconds and this bound failed once).
        long gone = System.nanoTime();
        await(() -> census(a).equals(censusOfA) && census(b).equals(censusOfB),
                "A's and B's census back to what it was before C came");
        assertThat(Duration.ofNanos(System.nanoTime() - gone)).as("C's connections and queue pairs closed, once C was gone")
                .isLessThan(REFRESH.multipliedBy(2));
        awaitEveryInstanceConnectedTo(2, a, b);
        assertHealthShows(a, 2);
        assertThat(verbsOfC.liveObjects().values()).as("C's verbs objects after its close").containsOnly(0L);

        ConfigurableApplicationContext again = start();
        awaitEveryInstanceConnectedTo(3, a, b, again);
        assertHealthShows(b, 3);
        assertKeysAreSharedAndReadEverywhere("second", a, b, again);
        assertEchoAnswers(a, b, again);
    }

    private ConfigurableApplicationContext start() {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(EchoApplication.class).run(
                "--spring.profiles.active=zookeeper",
                "--spring.cloud.zookeeper.connect-string=" + zookeeper.getConnectString(),
                "--server.port=0",
                "--rdma.simulated.fabric=three-instances",
                "--rdma.connections.listeners.echo.port=0",
                "--rdma.connections.listeners.kv.port=0");
        started.add(context);
        return context;
    }

    private void close(ConfigurableApplicationContext instance) {
        instance.close();
        started.remove(instance);
    }

    /**
     * Every instance's connections know {@code instances} instances of the service and are
     * connected to as many as they take: kv-client to each, echo-client to one.
     */
    private static void awaitEveryInstanceConnectedTo(int instances, ConfigurableApplicationContext... contexts)
            throws InterruptedException {
        for (ConfigurableApplicationContext context : contexts) {
            RdmaConnections connections = context.getBean(RdmaConnections.class);
            await(() -> connections.services().stream().filter(service -> CONNECTIONS.containsKey(service.name()))
                            .filter(service -> service.known() == instances
                                    && service.connected() == connectedOf(service.name(), instances)
                                    && connections.group(service.name()).all().size() == service.connected())
                            .count() == CONNECTIONS.size(),
                    "every connection of an instance connected to " + instances + " instances: "
                            + connections.services());
        }
    }

    private static int connectedOf(String connection, int instances) {
        return Math.min(instances, CONNECTIONS.get(connection));
    }

    private void assertHealthShows(ConfigurableApplicationContext instance, int instances) throws Exception {
        String health = get(instance, "/actuator/health").body();
        assertThat(JsonPath.<String>read(health, "$.components.rdma.status")).as(health).isEqualTo("UP");
        for (String connection : CONNECTIONS.keySet()) {
            String service = "$.components.rdma.details.services." + connection;
            assertThat(JsonPath.<Integer>read(health, service + ".known")).as(health).isEqualTo(instances);
            assertThat(JsonPath.<Integer>read(health, service + ".connected")).as(health)
                    .isEqualTo(connectedOf(connection, instances));
            assertThat(JsonPath.<Integer>read(health, service + ".failing")).as(health).isZero();
        }
    }

    /**
     * Keys put through the first instance are read back through every instance, each from the
     * store of the instance the key maps to; the keys are spread over more than one store.
     */
    private void assertKeysAreSharedAndReadEverywhere(String round, ConfigurableApplicationContext... instances)
            throws Exception {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            String key = round + "-" + i;
            keys.add(key);
            assertThat(send(HttpRequest.newBuilder(uri(instances[0], "/kv/" + key))
                    .header("Content-Type", "text/plain").PUT(HttpRequest.BodyPublishers.ofString("value of " + key)))
                    .statusCode()).as("PUT %s", key).isEqualTo(204);
        }
        for (ConfigurableApplicationContext instance : instances) {
            for (String key : keys) {
                assertThat(get(instance, "/kv/" + key).body()).isEqualTo("value of " + key);
            }
        }
        Set<String> stored = new HashSet<>();
        int holding = 0;
        for (ConfigurableApplicationContext instance : instances) {
            List<String> own = JsonPath.<List<String>>read(get(instance, "/kv").body(), "$").stream()
                    .filter(key -> key.startsWith(round + "-")).toList();
            holding += own.isEmpty() ? 0 : 1;
            stored.addAll(own);
        }
        assertThat(stored).containsExactlyInAnyOrderElementsOf(keys);
        assertThat(holding).as("stores holding %s keys", round).isGreaterThan(1);
    }

    private void assertEchoAnswers(ConfigurableApplicationContext... instances) throws Exception {
        for (ConfigurableApplicationContext instance : instances) {
            for (int i = 0; i < 6; i++) {
                assertThat(get(instance, "/echo?message=hi-" + i).body()).isEqualTo("echo: HI-" + i);
            }
        }
    }

    private static Map<ResourceKind, Long> census(ConfigurableApplicationContext instance) {
        return instance.getBean(Verbs.class).liveObjects();
    }

    private HttpResponse<String> get(ConfigurableApplicationContext instance, String path)
            throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(instance, path)));
    }

    private HttpResponse<String> send(HttpRequest.Builder request)
            throws IOException, InterruptedException {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(ConfigurableApplicationContext instance, String path) {
        int port = ((WebServerApplicationContext) instance).getWebServer().getPort();
        return URI.create("http://localhost:" + port + path);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + WAIT_SECONDS + " s: " + what);
            }
            Thread.sleep(20);
        }
    }
}

package io.rdma.sample.faults;

import io.rdma.sample.EchoApplication;
import io.rdma.spring.connection.ConnectionState;
import io.rdma.spring.connection.RdmaConnectionStateChangedEvent;
import io.rdma.spring.connection.RdmaConnections;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.provider.simulated.FabricControl;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import com.jayway.jsonpath.JsonPath;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The faults that {@code rdma-verbs/softroce/sample-faults-two-hosts.sh} injects between two
 * instances on rxe0 in two guests, here on the simulated fabric through {@link FabricControl}:
 * two instances of the sample on one fabric, registered in a real ZooKeeper, key-value and echo
 * traffic from {@link KvHistoryRecorder} through B's HTTP port (about half the keys live in A's
 * store), and a fault of B's link or of A. Each must show what it shows on rxe0 (the table in
 * docs/simulated-fabric.md): B's connection to A DOWN within the bound the reliability settings
 * give and UP again by itself once the fault ends; B's health counting A out and in again; every
 * failed request a 503 naming the channel, or a 504; the key-value history linearizable; B's
 * census back where it was.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SimulatedFabricFaultsTests {

    /** 4.096 µs × 2^12 = 16.8 ms a try, 8 tries: a peer that stopped answering is noticed after 134 ms. */
    private static final int ACK_TIMEOUT = 12;
    private static final int RETRY_COUNT = 7;
    private static final Duration DETECTION_BOUND = Duration.ofMillis(134).plusSeconds(2);
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String TO_A = "kv-client@sample-a";

    private final HttpClient http = HttpClient.newHttpClient();
    /** B's connection to A changing state: when, and to what. */
    private final List<Transition> transitions = new CopyOnWriteArrayList<>();
    private TestingServer zookeeper;
    private ConfigurableApplicationContext a;
    private ConfigurableApplicationContext b;

    private record Transition(long nanos, ConnectionState state) {
    }

    @BeforeAll
    void startTwoInstances() throws Exception {
        zookeeper = new TestingServer();
        a = start("sample-a");
        b = start("sample-b");
        b.addApplicationListener(ApplicationListener.forPayload((RdmaConnectionStateChangedEvent event) -> {
            if (event.name().equals(TO_A)) {
                transitions.add(new Transition(System.nanoTime(), event.newState()));
            }
        }));
        awaitBothConnected();
    }

    @AfterAll
    void stop() throws IOException {
        for (ConfigurableApplicationContext instance : new ConfigurableApplicationContext[] {b, a}) {
            if (instance != null) {
                instance.close();
            }
        }
        zookeeper.close();
    }

    @Test
    void aPartitionOfBsLinkIsNoticedWithinTheBoundAndHealsByItself(@TempDir Path dir) throws Exception {
        FabricControl linkOfB = control(b);
        Outcome outcome = underFault(dir, "partition",
                () -> linkOfB.setLoss("rxe0", 1, 1.0), Duration.ofSeconds(3), () -> linkOfB.setLoss("rxe0", 1, 0));

        outcome.assertDetectedWithinTheBound();
        outcome.assertReconnectedByItself();
        outcome.assertTypedFailuresOnly();
        outcome.assertLinearizable(List.of());
    }

    @Test
    void bsPortDownIsNoticedAndItsReturnReconnects(@TempDir Path dir) throws Exception {
        FabricControl linkOfB = control(b);
        Outcome outcome = underFault(dir, "port-down",
                () -> linkOfB.setPortState("rxe0", 1, PortState.DOWN), Duration.ofSeconds(3),
                () -> linkOfB.setPortState("rxe0", 1, PortState.ACTIVE));

        outcome.assertDetectedWithinTheBound();
        outcome.assertReconnectedByItself();
        outcome.assertTypedFailuresOnly();
        outcome.assertLinearizable(List.of());
    }

    /** 20 % of the packets lost each way: RC retries them, and with 8 tries the connection holds. */
    @Test
    void underTwentyPercentLossTheConnectionHoldsAndNothingIsLost(@TempDir Path dir) throws Exception {
        FabricControl linkOfB = control(b);
        Outcome outcome = underFault(dir, "loss-20",
                () -> linkOfB.setLoss("rxe0", 1, 0.2), Duration.ofSeconds(3), () -> linkOfB.setLoss("rxe0", 1, 0));

        assertThat(outcome.transitions()).as("B's connection to A under 20 %% loss").isEmpty();
        assertThat(outcome.history().stream().filter(operation -> operation.outcome() == KvOperation.Outcome.FAILED))
                .as("failed requests").isEmpty();
        outcome.assertLinearizable(List.of());
    }

    /**
     * A's process dies (its verbs session closed at once, as the kernel closes a killed process's
     * objects and its connection manager disconnects them) and, later, its registration goes:
     * its keys are lost with its store (reset), B notices within the bound, and once A is gone
     * its keys live in B's store. A new A joins afterwards and B's census is what it was.
     */
    @Test
    void aPeerThatDiesIsNoticedAndItsKeysAreLostNotStale(@TempDir Path dir) throws Exception {
        Map<ResourceKind, Long> ownWithA = ownCensus(b);
        List<String> keysOfA = new CopyOnWriteArrayList<>();
        long[] resetWindow = new long[2];
        Outcome outcome = underFault(dir, "kill", () -> {
            keysOfA.addAll(JsonPath.<List<String>>read(get(a, "/kv").body(), "$"));
            resetWindow[0] = KvOperation.epochMicros(Instant.now());
            a.getBean(Verbs.class).close();
            resetWindow[1] = KvOperation.epochMicros(Instant.now());
        }, Duration.ofSeconds(1), () -> a.close(), 1);

        outcome.assertDetectedWithinTheBound();
        outcome.assertTypedFailuresOnly();
        assertThat(keysOfA).as("keys of A's store when it died").anyMatch(key -> key.startsWith("kill-"));
        outcome.assertLinearizable(keysOfA.stream().filter(key -> key.startsWith("kill-"))
                .map(key -> new KvReset(key, resetWindow[0], resetWindow[1])).toList());

        a = start("sample-a");
        awaitBothConnected();
        // Which instance the new A's echo-client chose is LoadBalancer's choice: the peers B's
        // listeners hold are checked against A's connections to B, the rest of B's census as it was.
        await(() -> ownCensus(b).equals(ownWithA) && peersOf(b) == connectionsTo("sample-b", a) + connectionsTo("sample-b", b),
                () -> "B's own objects with the new A, as with the old: " + ownWithA + ", now " + ownCensus(b)
                        + "; B's listeners " + b.getBean(RdmaConnections.class).listeners());
    }

    private interface Fault {
        void run() throws Exception;
    }

    /**
     * Traffic for a second, {@code apply} at t0, {@code lift} after {@code length}, then traffic
     * until both are connected again and a second more; B's census back where it was.
     */
    private Outcome underFault(Path dir, String name, Fault apply, Duration length, Fault lift) throws Exception {
        return underFault(dir, name, apply, length, lift, 2);
    }

    /** {@code instancesAfter}: the instances B's kv-client connects to once the fault is lifted. */
    private Outcome underFault(Path dir, String name, Fault apply, Duration length, Fault lift, int instancesAfter)
            throws Exception {
        awaitBothConnected();
        Map<ResourceKind, Long> census = census(b);
        Path history = dir.resolve(name + ".jsonl");
        Path stop = dir.resolve("stop");
        KvRecorderOptions options = KvRecorderOptions.parse("--base-url=http://localhost:" + port(b),
                "--keys=16", "--key-prefix=" + name + "-", "--clients=6", "--history=" + history,
                "--stop-file=" + stop, "--request-timeout=30s", "--echo", "--preload");
        CompletableFuture<KvHistorySummary> recorded = KvHistoryRecorder.recordInBackground(options);
        await(() -> Files.exists(history) && lines(history) > 100, "traffic before the fault");
        int before = transitions.size();
        long t0 = System.nanoTime();
        apply.run();
        Thread.sleep(length.toMillis());
        int healthDuring = healthConnected(b);
        lift.run();
        long t1 = System.nanoTime();
        await(() -> connectedTo(b) == instancesAfter, "B connected to " + instancesAfter + " instances");
        int healthAfter = healthConnected(b);
        Thread.sleep(1000);
        Files.createFile(stop);
        recorded.get(60, TimeUnit.SECONDS);
        if (instancesAfter == 2) {
            await(() -> census(b).equals(census), "B's census back to " + census + ": " + census(b));
        }
        return new Outcome(name, t0, t1, List.copyOf(transitions.subList(before, transitions.size())),
                healthDuring, healthAfter,
                Files.readAllLines(history).stream().filter(line -> !line.isBlank()).map(KvOperation::parse).toList());
    }

    /** What one fault did, and the checks of it. */
    private record Outcome(String name, long t0, long t1, List<Transition> transitions, int healthDuring,
                           int healthAfter, List<KvOperation> history) {

        void assertDetectedWithinTheBound() {
            assertThat(transitions).as(name + ": B's connection to A").isNotEmpty();
            Transition down = transitions.getFirst();
            assertThat(down.state()).as(name).isNotEqualTo(ConnectionState.UP);
            assertThat(Duration.ofNanos(down.nanos() - t0)).as(name + ": detection").isLessThan(DETECTION_BOUND);
        }

        /** B's connection to A is UP again once the fault ended, and B's health counted A out and in again. */
        void assertReconnectedByItself() {
            assertThat(transitions.getLast().state()).as(name + ": back").isEqualTo(ConnectionState.UP);
            assertThat(Duration.ofNanos(transitions.getLast().nanos() - t1)).as(name + ": recovery").isPositive();
            assertThat(healthDuring).as(name + ": instances connected in B's health during the fault").isLessThan(2);
            assertThat(healthAfter).as(name + ": after it").isEqualTo(2);
        }

        void assertTypedFailuresOnly() {
            history.stream().filter(operation -> operation.outcome() == KvOperation.Outcome.FAILED).forEach(failed -> {
                assertThat(failed.status()).as(name + ": " + failed).isIn(503, 504);
                if (failed.status() == 503) {
                    assertThat(failed.error()).as(name + ": " + failed).containsAnyOf("kv-client@", "echo-client");
                }
            });
        }

        void assertLinearizable(List<KvReset> resets) {
            KvLinearizabilityChecker.Verdict verdict = KvLinearizabilityChecker.check(history, resets);
            assertThat(verdict.violations()).as(name + ": " + verdict.summary()).isEmpty();
        }
    }

    private ConfigurableApplicationContext start(String id) {
        return new SpringApplicationBuilder(EchoApplication.class).run(
                "--spring.profiles.active=zookeeper",
                "--spring.cloud.zookeeper.connect-string=" + zookeeper.getConnectString(),
                "--spring.cloud.zookeeper.discovery.instance-id=" + id,
                "--server.port=0",
                "--rdma.provider=simulated",
                "--rdma.simulated.fabric=faults",
                "--rdma.connections.listeners.echo.port=0",
                "--rdma.connections.listeners.kv.port=0",
                "--rdma.devices.nic.queue-pair-defaults.reliability.ack-timeout=" + ACK_TIMEOUT,
                "--rdma.devices.nic.queue-pair-defaults.reliability.retry-count=" + RETRY_COUNT);
    }

    /** Until B's kv-client is connected to A and to B, and each instance's health shows both. */
    private void awaitBothConnected() throws InterruptedException {
        await(() -> connectedTo(b) == 2 && connectedTo(a) == 2, "both instances connected to both");
    }

    private static long connectedTo(ConfigurableApplicationContext instance) {
        return instance.getBean(RdmaConnections.class).services().stream()
                .filter(service -> service.name().equals("kv-client")).mapToLong(service -> service.connected())
                .sum();
    }

    /** How many instances {@code instance}'s health shows kv-client connected to. */
    private int healthConnected(ConfigurableApplicationContext instance) throws IOException, InterruptedException {
        return JsonPath.<Integer>read(get(instance, "/actuator/health").body(),
                "$.components.rdma.details.services.kv-client.connected");
    }

    private static FabricControl control(ConfigurableApplicationContext instance) {
        return instance.getBean(Verbs.class).extension(FabricControl.class).orElseThrow();
    }

    /** {@code instance}'s census without the queue pairs and connections of the peers its listeners accepted. */
    private static Map<ResourceKind, Long> ownCensus(ConfigurableApplicationContext instance) {
        long peers = peersOf(instance);
        Map<ResourceKind, Long> own = new EnumMap<>(census(instance));
        own.merge(ResourceKind.QUEUE_PAIR, -peers, Long::sum);
        own.merge(ResourceKind.CONNECTION, -peers, Long::sum);
        return own;
    }

    private static long peersOf(ConfigurableApplicationContext instance) {
        return instance.getBean(RdmaConnections.class).listeners().stream()
                .mapToLong(listener -> listener.peers().size()).sum();
    }

    /** How many of {@code instance}'s outbound connections are up to instance {@code id}. */
    private static long connectionsTo(String id, ConfigurableApplicationContext instance) {
        return instance.getBean(RdmaConnections.class).services().stream()
                .flatMap(service -> service.instances().stream())
                .filter(connection -> connection.state() == ConnectionState.UP && connection.name().endsWith("@" + id))
                .count();
    }

    private static Map<ResourceKind, Long> census(ConfigurableApplicationContext instance) {
        return instance.getBean(Verbs.class).liveObjects();
    }

    private static long lines(Path file) {
        try (var lines = Files.lines(file)) {
            return lines.count();
        }
        catch (IOException e) {
            return 0;
        }
    }

    private HttpResponse<String> get(ConfigurableApplicationContext instance, String path)
            throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port(instance) + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static int port(ConfigurableApplicationContext instance) {
        return ((WebServerApplicationContext) instance).getWebServer().getPort();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        await(condition, () -> what);
    }

    private static void await(BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + WAIT.toSeconds() + " s: " + what.get());
            }
            Thread.sleep(20);
        }
    }
}

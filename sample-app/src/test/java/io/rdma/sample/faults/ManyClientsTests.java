package io.rdma.sample.faults;

import io.rdma.spring.connection.RdmaConnections;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample under many clients at once (the overload that once left buckets locked for good and
 * answered 500s): {@link KvHistoryRecorder}'s clients on 64 keys through HTTP, on whichever
 * provider the system properties select (the simulated fabric in {@code mvn verify}, rxe0 in the
 * Soft-RoCE guest). Afterwards every key is writable and reads back what was written, no request
 * got a 500 or no answer, and the history is linearizable. How many clients and for how long:
 * {@code sample-test.many-clients} (1024: 16 operations in flight on each key at every moment)
 * and {@code sample-test.many-clients-seconds} (3). The clients connect at once: more than the
 * HTTP server's listen backlog ({@code server.tomcat.accept-count}) would overflow the kernel's
 * queue, and a PUT then ends without an answer (docs/reliability.md, "A thousand clients' history").
 *
 * <p>The clients run in the server's JVM, and where that JVM is starved (in the emulated Soft-RoCE
 * guest, on one virtual-thread carrier, the clients' first answers took 44 to 168 s) a client may
 * open its connection and write its first request more than a minute later. Tomcat closes a new
 * connection that sent no complete request within {@code server.tomcat.connection-timeout} (60 s
 * by default) with a FIN and nothing logged, which the client sees as a request without an answer
 * ("header parser received no bytes"): a timeout of the test's own clients, not of the store, so
 * the test gives them 10 minutes.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "server.tomcat.connection-timeout=10m")
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class ManyClientsTests {

    private static final int CLIENTS = Integer.getInteger("sample-test.many-clients", 1024);
    private static final Duration LOAD = Duration.ofSeconds(Long.getLong("sample-test.many-clients-seconds", 3));
    private static final Duration WAIT = Duration.ofSeconds(Long.getLong("sample-test.cluster-wait-seconds", 60));
    private static final int KEYS = 64;
    /** A check slower than this keeps its history under target/ (KvLinearizabilityChecker can replay it). */
    private static final Duration SLOW_CHECK = Duration.ofSeconds(10);

    @Value("${local.server.port}")
    int port;

    @Value("${sample.kv.timeout}")
    Duration kvTimeout;

    @Value("${server.tomcat.accept-count}")
    int acceptCount;

    @Autowired
    RdmaConnections connections;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void underManyClientsEveryKeyStaysWritableAndTheHistoryIsLinearizable(@TempDir Path dir) throws Exception {
        assertThat(CLIENTS).as("clients connecting at once, within the listen backlog (server.tomcat.accept-count)")
                .isLessThanOrEqualTo(acceptCount);
        await().atMost(WAIT).until(() -> !connections.group("kv-client").all().isEmpty()
                && !connections.group("echo-client").all().isEmpty());
        Path history = dir.resolve("history.jsonl");
        Path stop = dir.resolve("stop");
        // a request may wait its whole kv timeout and then some for its HTTP thread: twice, and a minute
        Duration requestTimeout = kvTimeout.multipliedBy(2).plusMinutes(1);
        KvRecorderOptions options = KvRecorderOptions.parse("--base-url=http://localhost:" + port, "--keys=" + KEYS,
                "--key-prefix=many-", "--clients=" + CLIENTS, "--history=" + history, "--stop-file=" + stop,
                "--request-timeout=" + requestTimeout.toSeconds() + "s", "--pause=0ms", "--echo");
        KernelTcpCounters before = KernelTcpCounters.read();
        CompletableFuture<KvHistorySummary> recorded = KvHistoryRecorder.recordInBackground(options);
        Thread.sleep(LOAD.toMillis());
        Files.createFile(stop);
        recorded.get(requestTimeout.toSeconds() + 60, TimeUnit.SECONDS);
        // what the kernel did to this host's TCP connections meanwhile (both ends are in this JVM)
        System.out.println("TCP counters that moved under the load: " + KernelTcpCounters.read().changedSince(before));

        List<KvOperation> operations = Files.readAllLines(history).stream().filter(line -> !line.isBlank())
                .map(KvOperation::parse).toList();
        assertThat(operations).as("operations under load").hasSizeGreaterThan(CLIENTS);
        List<KvOperation> unexpected = operations.stream().filter(operation -> operation.outcome()
                == KvOperation.Outcome.FAILED && operation.status() != 503 && operation.status() != 504).toList();
        if (!unexpected.isEmpty()) {
            keep(history, "failed"); // the whole history, to find out why
        }
        assertThat(unexpected).as("failures under overload other than a 503 or 504").isEmpty();
        long checking = System.nanoTime();
        KvLinearizabilityChecker.Verdict verdict = KvLinearizabilityChecker.check(operations, List.of());
        // the figure that says whether the checker keeps up with a thousand concurrent clients
        long checkMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - checking);
        System.out.println("checked " + operations.size() + " operations in " + checkMillis + " ms: "
                + verdict.summary());
        if (checkMillis > SLOW_CHECK.toMillis()) {
            // kept to find out why: the check's time depends on the history (seconds for most, 10 minutes for one)
            keep(history, "slow");
        }
        assertThat(verdict.violations()).as(verdict.summary()).isEmpty();
        for (int key = 0; key < KEYS; key++) {
            String value = "after the load " + key;
            assertThat(send(HttpRequest.newBuilder(uri("/kv/many-" + key)).header("Content-Type", "text/plain")
                    .PUT(HttpRequest.BodyPublishers.ofString(value))).statusCode()).as("PUT many-" + key).isEqualTo(204);
            assertThat(send(HttpRequest.newBuilder(uri("/kv/many-" + key))).body()).isEqualTo(value);
        }
    }

    /** Copies {@code history} under target/ (in the Soft-RoCE guest, the shared working tree: the host sees it). */
    private static void keep(Path history, String why) throws IOException {
        Path kept = Files.copy(history, Path.of("target", "many-clients-" + why + "-history-" + System.currentTimeMillis()
                + ".jsonl"));
        System.out.println("the " + why + " run's history is kept in " + kept.toAbsolutePath());
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }
}

package io.rdma.sample.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Scenarios one after the other in one session, driven through its files as the fault script
 * drives it, against a stand-in for the sample's endpoints.
 */
class KvFaultSessionTests {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @RegisterExtension
    final StandInHttpServer server = new StandInHttpServer();

    @Test
    void eachScenarioIsRecordedUnderItsOwnKeysAndChecked() throws Exception {
        server.serve(new InMemoryKvService());
        CompletableFuture<Void> session = start(KvFaultSession.of(dir, recorderArgs(Duration.ofSeconds(5), "--preload")));

        for (String scenario : List.of("kill", "loss-1")) {
            Path history = record(scenario, 100);

            assertThat(status(scenario)).isEqualTo("0");
            assertThat(Files.readAllLines(history).stream().map(KvOperation::parse).filter(operation -> operation.key() != null))
                    .isNotEmpty().allSatisfy(operation -> assertThat(operation.key()).startsWith(scenario + "-"));
            assertThat(Files.readString(dir.resolve(scenario + ".recorder"))).startsWith("operations ").contains("none failed");
            assertThat(Files.readAllLines(dir.resolve(scenario + ".verdict")))
                    .containsExactly("keys 3, operations " + Files.readAllLines(history).size() + ", linearizable 3, violations 0");
        }
        assertThat(session).isNotDone();
        Files.createFile(dir.resolve("end"));
        session.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void aScenarioWithResetsHasTheCheckerReadThem() throws Exception {
        server.serve(new InMemoryKvService());
        CompletableFuture<Void> session = start(KvFaultSession.of(dir, recorderArgs(Duration.ofSeconds(5))));
        Files.writeString(dir.resolve("kill.resets"), "kill-0 not-a-time\n");

        record("kill", 10);

        assertThat(status("kill")).isEqualTo("2");
        assertThat(Files.readString(dir.resolve("kill.verdict"))).contains("kill.resets:1");
        Files.createFile(dir.resolve("end"));
        session.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void aRecordingThatFailsSaysWhyAndTheSessionGoesOn() throws Exception {
        server.serve(exchange -> {
            try (exchange) {
                exchange.sendResponseHeaders(503, -1);
            }
        });
        CompletableFuture<Void> session = start(KvFaultSession.of(dir, recorderArgs(Duration.ofMillis(300), "--preload")));

        Files.createFile(dir.resolve("partition.start"));

        assertThat(status("partition")).isEqualTo(Integer.toString(KvFaultSession.RECORDING_FAILED));
        assertThat(Files.readString(dir.resolve("partition.recorder")))
                .startsWith("recording failed: preload: PUT partition-0 did not answer 204 within 300 ms");
        assertThat(dir.resolve("partition.verdict")).doesNotExist();
        assertThat(session).isNotDone();
        Files.createFile(dir.resolve("end"));
        session.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void theOptionsEachScenarioSetsItselfAreRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> KvFaultSession.of(dir, List.of("--key-prefix=k")))
                .withMessage("--key-prefix=k: each scenario sets --history, --stop-file, --key-prefix itself");
        assertThatIllegalArgumentException().isThrownBy(() -> KvFaultSession.of(dir, List.of("--clients=none")))
                .withMessage("--clients must be a positive integer, not none");
    }

    /** Starts {@code scenario}, stops it once its history has {@code operations} lines, and returns the history. */
    private Path record(String scenario, int operations) throws IOException {
        Path history = dir.resolve(scenario + ".history.jsonl");
        Files.createFile(dir.resolve(scenario + ".start"));
        await().atMost(WAIT).until(() -> Files.exists(history) && Files.readAllLines(history).size() >= operations);
        Files.createFile(dir.resolve(scenario + ".stop"));
        return history;
    }

    private String status(String scenario) throws IOException {
        Path status = dir.resolve(scenario + ".status");
        await().atMost(WAIT).until(() -> Files.exists(status));
        return Files.readString(status).strip();
    }

    private static CompletableFuture<Void> start(KvFaultSession session) {
        return CompletableFuture.runAsync(() -> {
            try {
                session.run();
            }
            catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private List<String> recorderArgs(Duration requestTimeout, String... more) {
        return Stream.concat(Stream.of(server.baseUrlOption(), "--keys=3", "--clients=2",
                "--request-timeout=" + requestTimeout.toMillis() + "ms", "--pause=1ms"), Stream.of(more)).toList();
    }
}

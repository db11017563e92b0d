package io.rdma.sample.faults;

import io.rdma.sample.faults.KvOperation.Op;
import io.rdma.sample.faults.KvOperation.Outcome;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The history line format, what an HTTP answer makes of an operation, and whole runs of the
 * recorder against a stand-in for the sample's endpoints.
 */
class KvHistoryRecorderTests {

    @TempDir
    Path dir;

    @RegisterExtension
    final StandInHttpServer server = new StandInHttpServer();

    @Test
    void aLineHoldsEveryFieldInItsOrderAndReadsBackAsItWasWritten() {
        KvOperation put = new KvOperation(3, Op.PUT, "k7", "c3-17", 1_767_225_600_000_000L, 1_767_225_600_001_234L,
                503, Outcome.FAILED, "the channel \"kv-client\" is down", "WR_FLUSH_ERR");
        KvOperation absent = new KvOperation(2, Op.GET, "k1", null, 10, 20, 404, Outcome.ABSENT, null, null);

        assertThat(put.toJson()).isEqualTo("{\"client\":3,\"op\":\"put\",\"key\":\"k7\",\"value\":\"c3-17\","
                + "\"invoke\":1767225600000000,\"complete\":1767225600001234,\"status\":503,\"outcome\":\"failed\","
                + "\"error\":\"the channel \\\"kv-client\\\" is down\",\"completionStatus\":\"WR_FLUSH_ERR\"}");
        assertThat(absent.toJson()).isEqualTo("{\"client\":2,\"op\":\"get\",\"key\":\"k1\",\"value\":null,\"invoke\":10,"
                + "\"complete\":20,\"status\":404,\"outcome\":\"absent\",\"error\":null,\"completionStatus\":null}");
        assertThat(KvOperation.parse(put.toJson())).isEqualTo(put);
        assertThat(KvOperation.parse(absent.toJson())).isEqualTo(absent);
    }

    @Test
    void aLineThatIsNotAnOperationSaysWhatIsWrong() {
        assertThatIllegalArgumentException().isThrownBy(() -> KvOperation.parse("{\"client\":1,\"op\":\"put\"}"))
                .withMessage("\"invoke\" must be an integer");
        assertThatIllegalArgumentException().isThrownBy(() -> KvOperation.parse(
                        "{\"client\":1,\"op\":\"cas\",\"key\":\"k\",\"invoke\":1,\"complete\":2,\"status\":0,\"outcome\":\"ok\"}"))
                .withMessageContaining("\"op\" is cas");
        assertThatIllegalArgumentException().isThrownBy(() -> KvOperation.parse(
                        "{\"client\":1,\"op\":\"get\",\"key\":\"k\",\"invoke\":1,\"complete\":2,\"status\":200,\"outcome\":\"ok\"}"))
                .withMessageContaining("a get has a value exactly when its outcome is ok");
        assertThatIllegalArgumentException().isThrownBy(() -> KvOperation.parse("{\"client\":"))
                .withMessageStartingWith("not JSON");
    }

    @Test
    void theStatusOfAnAnswerSaysTheOutcomeAsTheSampleMapsIt() {
        assertThat(Op.PUT.outcomeOf(204)).isEqualTo(Outcome.OK);
        assertThat(Op.PUT.outcomeOf(404)).isEqualTo(Outcome.FAILED);
        assertThat(Op.GET.outcomeOf(200)).isEqualTo(Outcome.OK);
        assertThat(Op.GET.outcomeOf(404)).isEqualTo(Outcome.ABSENT);
        assertThat(Op.GET.outcomeOf(204)).isEqualTo(Outcome.FAILED);
        assertThat(Op.DELETE.outcomeOf(204)).isEqualTo(Outcome.OK);
        assertThat(Op.DELETE.outcomeOf(404)).isEqualTo(Outcome.ABSENT);
        assertThat(Op.ECHO.outcomeOf(200)).isEqualTo(Outcome.OK);
        for (int failed : new int[] {0, 413, 500, 502, 503, 504}) {
            for (Op op : Op.values()) {
                assertThat(op.outcomeOf(failed)).as("%s answered %d", op, failed).isEqualTo(Outcome.FAILED);
            }
        }
    }

    @Test
    void theArgumentsHaveDefaultsAndTheFilesAreRequired() {
        KvRecorderOptions options = KvRecorderOptions.parse("--history=h", "--stop-file=s", "--echo", "--pause=1ms",
                "--base-url=http://10.0.0.2:8081/");

        assertThat(options).isEqualTo(new KvRecorderOptions(URI.create("http://10.0.0.2:8081"), 16, "k", 8,
                Path.of("h"), Path.of("s"), Duration.ofSeconds(30), Duration.ofMillis(1), true, false));
        assertThatIllegalArgumentException().isThrownBy(() -> KvRecorderOptions.parse("--history=h"))
                .withMessage("--stop-file=... is required");
        assertThatIllegalArgumentException().isThrownBy(() -> KvRecorderOptions.parse("--history=h", "--stop-file=s",
                "--request-timeout=30")).withMessageContaining("--request-timeout must be a duration");
        assertThatIllegalArgumentException().isThrownBy(() -> KvRecorderOptions.parse("--history=h", "--stop-file=s",
                "--client=3")).withMessageContaining("unknown options [client]");
    }

    @Test
    void aRunAgainstAnAtomicStoreRecordsALinearizableHistoryOfEveryOperation() throws Exception {
        server.serve(new InMemoryKvService());
        KvRecorderOptions options = options(4, Duration.ofSeconds(5), "--keys=3", "--echo", "--preload");
        CompletableFuture<KvHistorySummary> run = recordInBackground(options);
        await().atMost(Duration.ofSeconds(20)).until(() -> Files.readAllLines(options.history()).size() >= 400);
        Files.createFile(options.stopFile());
        KvHistorySummary summary = run.get(30, TimeUnit.SECONDS);

        List<KvOperation> history = Files.readAllLines(options.history()).stream().map(KvOperation::parse).toList();
        assertThat(history.subList(0, 3)).extracting(KvOperation::client, KvOperation::value, KvOperation::outcome)
                .containsExactly(preloaded("p-k0"), preloaded("p-k1"), preloaded("p-k2"));
        assertThat(history).extracting(KvOperation::op).contains(Op.PUT, Op.GET, Op.DELETE, Op.ECHO);
        assertThat(history).filteredOn(operation -> operation.op() == Op.ECHO)
                .allSatisfy(echo -> assertThat(echo.outcome()).isEqualTo(Outcome.OK));
        assertThat(history).allSatisfy(operation -> assertThat(operation.outcome()).isNotEqualTo(Outcome.FAILED));
        assertThat(summary.count(Op.PUT, Outcome.OK)).isEqualTo(history.stream()
                .filter(operation -> operation.op() == Op.PUT).count());
        assertThat(summary.line()).startsWith("operations " + history.size() + ": put ok ").contains("none failed");
        assertThat(KvLinearizabilityChecker.check(history, List.of()).violations()).isEmpty();
    }

    @Test
    void aRequestWithoutAnAnswerWithinTheTimeoutIsRecordedFailed() throws Exception {
        CountDownLatch received = new CountDownLatch(1);
        CountDownLatch answered = new CountDownLatch(1);
        server.serve(exchange -> {
            received.countDown();
            try {
                answered.await();
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        KvRecorderOptions options = options(1, Duration.ofMillis(300));
        CompletableFuture<KvHistorySummary> run = recordInBackground(options);
        received.await();
        Files.createFile(options.stopFile());
        KvHistorySummary summary = run.get(30, TimeUnit.SECONDS);
        answered.countDown();

        assertThat(Files.readAllLines(options.history()).stream().map(KvOperation::parse)).singleElement()
                .satisfies(operation -> {
                    assertThat(operation.outcome()).isEqualTo(Outcome.FAILED);
                    assertThat(operation.status()).isZero();
                    assertThat(operation.error()).isEqualTo("no answer within 300 ms");
                    assertThat(operation.complete() - operation.invoke()).isGreaterThanOrEqualTo(300_000);
                });
        assertThat(summary.line()).contains("failed by status 0: 1");
    }

    @Test
    void aProblemDetailAnswerGivesTheErrorAndCompletionStatusAndAFailedPreloadIsRetriedWithNewValues()
            throws Exception {
        server.serve(exchange -> {
            try (exchange) {
                byte[] problem = "{\"status\":503,\"detail\":\"RDMA WRITE on channel kv-client failed\",\"completionStatus\":\"RETRY_EXC_ERR\"}"
                        .getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/problem+json");
                exchange.sendResponseHeaders(503, problem.length);
                exchange.getResponseBody().write(problem);
            }
        });
        KvRecorderOptions options = options(1, Duration.ofSeconds(1), "--preload");
        Files.createFile(options.stopFile());

        assertThatThrownBy(() -> KvHistoryRecorder.record(options)).isInstanceOf(KvHistoryRecorder.PreloadFailedException.class)
                .hasMessageContaining("preload: PUT k0 did not answer 204 within 1000 ms");
        List<KvOperation> tries = Files.readAllLines(options.history()).stream().map(KvOperation::parse).toList();
        assertThat(tries).hasSizeGreaterThanOrEqualTo(2).allSatisfy(operation -> {
            assertThat(operation.status()).isEqualTo(503);
            assertThat(operation.error()).isEqualTo("RDMA WRITE on channel kv-client failed");
            assertThat(operation.completionStatus()).isEqualTo("RETRY_EXC_ERR");
        });
        assertThat(tries).extracting(KvOperation::value).startsWith("p-k0", "p-k0-2").doesNotHaveDuplicates();
    }

    @Test
    void anEchoAnsweredWithAnythingButTheMessageUpperCasedIsRecordedFailed() throws Exception {
        server.serve(exchange -> {
            try (exchange) {
                byte[] answer = "echo: nope".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, answer.length);
                exchange.getResponseBody().write(answer);
            }
        });
        KvRecorderOptions options = options(1, Duration.ofSeconds(5), "--echo");
        CompletableFuture<KvHistorySummary> run = recordInBackground(options);
        await().atMost(Duration.ofSeconds(20)).until(() -> Files.readAllLines(options.history()).size() >= 2);
        Files.createFile(options.stopFile());
        run.get(30, TimeUnit.SECONDS);

        assertThat(Files.readAllLines(options.history()).stream().map(KvOperation::parse)
                .filter(operation -> operation.op() == Op.ECHO)).first().satisfies(echo -> {
                    assertThat(echo.status()).isEqualTo(200);
                    assertThat(echo.outcome()).isEqualTo(Outcome.FAILED);
                    assertThat(echo.value()).isEqualTo("c1-e1");
                    assertThat(echo.error()).isEqualTo("answered \"echo: nope\", not the echo of \"c1-e1\"");
                });
    }

    private KvRecorderOptions options(int clients, Duration requestTimeout, String... more) {
        List<String> args = new ArrayList<>(List.of(server.baseUrlOption(),
                "--clients=" + clients, "--history=" + dir.resolve("history.jsonl"), "--stop-file=" + dir.resolve("stop"),
                "--request-timeout=" + requestTimeout.toMillis() + "ms", "--pause=1ms"));
        args.addAll(List.of(more));
        return KvRecorderOptions.parse(args.toArray(String[]::new));
    }

    private static CompletableFuture<KvHistorySummary> recordInBackground(KvRecorderOptions options) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return KvHistoryRecorder.record(options);
            }
            catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static Tuple preloaded(String value) {
        return Tuple.tuple(KvHistoryRecorder.PRELOAD, value, Outcome.OK);
    }
}

package io.rdma.sample.faults;

import io.rdma.sample.faults.KvOperation.Op;
import io.rdma.sample.faults.KvOperation.Outcome;

import java.io.BufferedWriter;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

import org.jspecify.annotations.Nullable;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Drives the sample's key-value store over HTTP from several clients and records every operation
 * for {@link KvLinearizabilityChecker}, a {@link KvOperation} line each, while faults are injected:
 * <pre>
 * java -cp sample-app/target/test-classes:&lt;the sample's test class path&gt; io.rdma.sample.faults.KvHistoryRecorder \
 *     --base-url=http://127.0.0.1:8080 --keys=16 --key-prefix=k --clients=8 --history=history.jsonl \
 *     --stop-file=stop --request-timeout=30s --pause=5ms [--echo] [--preload]
 * </pre>
 * (see {@link KvRecorderOptions}). With {@code --preload} it first PUTs each key, one after the
 * other, value {@code p-<key>} ({@code p-<key>-<attempt>} when retried: values stay unique), as
 * client 0, until it answers 204 or the request timeout has passed since the key's first try,
 * which ends the run with status 1. Then clients 1 .. N, each on its virtual thread, repeat until
 * the stop file exists: a random key and a PUT (half the rounds; value {@code c<client>-<n>}, its
 * n-th write), a GET (four in ten) or a DELETE; with {@code --echo} also a {@code GET /echo} of
 * {@code c<client>-e<n>}, whose answer must be {@code echo: C<CLIENT>-E<N>}; then the pause. Each
 * line is flushed as its answer (or failure) comes, so the file is whole when the run ends; then
 * it prints a one-line {@link KvHistorySummary}. Exits with 2 on bad arguments.
 */
public final class KvHistoryRecorder {

    /** The client number of the preload's PUTs. */
    static final int PRELOAD = 0;
    /** Between two tries to preload a key: the instance may still be connecting. */
    private static final Duration PRELOAD_RETRY = Duration.ofMillis(100);

    private static final JsonMapper json = JsonMapper.builder().build();

    private final KvRecorderOptions options;
    private final HttpClient http;
    private final BufferedWriter history;
    private final KvHistorySummary summary = new KvHistorySummary();

    private KvHistoryRecorder(KvRecorderOptions options, HttpClient http, BufferedWriter history) {
        this.options = options;
        this.http = http;
        this.history = history;
    }

    public static void main(String[] args) throws IOException, InterruptedException, ExecutionException {
        KvRecorderOptions options;
        try {
            options = KvRecorderOptions.parse(args);
        }
        catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        try {
            System.out.println(record(options).line());
        }
        catch (PreloadFailedException e) {
            System.err.println(e.getMessage());
            System.exit(1);
        }
    }

    /** Records the history {@code options} describe until the stop file exists; returns its counts. */
    static KvHistorySummary record(KvRecorderOptions options)
            throws IOException, InterruptedException, ExecutionException, PreloadFailedException {
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(options.requestTimeout()).build();
             BufferedWriter history = Files.newBufferedWriter(options.history())) {
            KvHistoryRecorder recorder = new KvHistoryRecorder(options, http, history);
            if (options.preload()) {
                recorder.preload();
            }
            recorder.runClients();
            return recorder.summary;
        }
    }

    /** {@link #record} on a thread of its own, for a test that injects faults meanwhile and then creates the stop file. */
    static CompletableFuture<KvHistorySummary> recordInBackground(KvRecorderOptions options) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return record(options);
            }
            catch (Exception e) {
                throw new IllegalStateException("recording " + options.history() + " failed", e);
            }
        }, command -> Thread.ofVirtual().name("kv-history-recorder").start(command));
    }

    /** The preload could not store a key within the request timeout. */
    static final class PreloadFailedException extends Exception {
        PreloadFailedException(String message) {
            super(message);
        }
    }

    private void preload() throws IOException, InterruptedException, PreloadFailedException {
        for (int i = 0; i < options.keys(); i++) {
            String key = options.keyPrefix() + i;
            Instant giveUp = Instant.now().plus(options.requestTimeout());
            for (int attempt = 1; ; attempt++) {
                KvOperation put = put(PRELOAD, key, "p-" + key + (attempt == 1 ? "" : "-" + attempt));
                if (put.outcome() == Outcome.OK) {
                    break;
                }
                if (Instant.now().isAfter(giveUp)) {
                    throw new PreloadFailedException("preload: PUT " + key + " did not answer 204 within "
                            + options.requestTimeout().toMillis() + " ms, the last try: "
                            + KvRegisterHistory.describe(put, put.invoke()) + "; is the instance up and connected?");
                }
                Thread.sleep(PRELOAD_RETRY);
            }
        }
    }

    private void runClients() throws InterruptedException, ExecutionException {
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> clients = new ArrayList<>();
            for (int client = 1; client <= options.clients(); client++) {
                int number = client;
                clients.add(threads.submit(() -> {
                    runClient(number);
                    return null;
                }));
            }
            for (Future<?> client : clients) {
                client.get();
            }
        }
    }

    private void runClient(int client) throws IOException, InterruptedException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int writes = 0;
        int echoes = 0;
        while (!Files.exists(options.stopFile())) {
            String key = options.keyPrefix() + random.nextInt(options.keys());
            int dice = random.nextInt(10);
            if (dice < 5) {
                put(client, key, "c" + client + "-" + ++writes);
            }
            else if (dice < 9) {
                exchange(client, Op.GET, key, null, request("/kv/" + key).GET());
            }
            else {
                exchange(client, Op.DELETE, key, null, request("/kv/" + key).DELETE());
            }
            if (options.echo()) {
                String message = "c" + client + "-e" + ++echoes;
                exchange(client, Op.ECHO, null, message,
                        request("/echo?message=" + URLEncoder.encode(message, StandardCharsets.UTF_8)).GET());
            }
            Thread.sleep(options.pause());
        }
    }

    /** Sent as text: a form's content type would have the servlet container take the body as form fields. */
    private KvOperation put(int client, String key, String value) throws IOException {
        return exchange(client, Op.PUT, key, value, request("/kv/" + key).header("Content-Type", "text/plain; charset=UTF-8")
                .PUT(HttpRequest.BodyPublishers.ofString(value, StandardCharsets.UTF_8)));
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(options.baseUrl() + path)).timeout(options.requestTimeout());
    }

    /**
     * Sends {@code request} ({@code sent}: the value a PUT writes, the message an echo sends) and
     * records what came back; an interrupt counts as no answer, and is kept for the client's loop.
     */
    private KvOperation exchange(int client, Op op, @Nullable String key, @Nullable String sent, HttpRequest.Builder request)
            throws IOException {
        long invoke = KvOperation.epochMicros(Instant.now());
        int status = 0;
        String body = null;
        String error = null;
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            status = response.statusCode();
            body = response.body();
        }
        catch (HttpTimeoutException e) {
            error = "no answer within " + options.requestTimeout().toMillis() + " ms";
        }
        catch (IOException e) {
            error = e.toString();
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            error = "interrupted while waiting for the answer";
        }
        long complete = KvOperation.epochMicros(Instant.now());
        Outcome outcome = op.outcomeOf(status);
        String completionStatus = null;
        if (op == Op.ECHO && outcome == Outcome.OK && !("echo: " + sent.toUpperCase(Locale.ROOT)).equals(body)) {
            outcome = Outcome.FAILED;
            error = "answered \"" + body + "\", not the echo of \"" + sent + "\"";
        }
        else if (outcome == Outcome.FAILED && body != null) {
            JsonNode problem = problemDetail(body);
            error = problem != null && problem.get("detail") != null ? problem.get("detail").asString() : body;
            completionStatus = problem != null && problem.get("completionStatus") != null
                    ? problem.get("completionStatus").asString() : null;
        }
        String value = op == Op.GET ? (outcome == Outcome.OK ? body : null) : sent;
        return append(new KvOperation(client, op, key, value, invoke, complete, status, outcome, error, completionStatus));
    }

    /** The ProblemDetail an error answer carries, or null when it is not JSON (a proxy's page, say). */
    private static @Nullable JsonNode problemDetail(String body) {
        try {
            JsonNode node = json.readTree(body);
            return node != null && node.isObject() ? node : null;
        }
        catch (JacksonException e) {
            return null;
        }
    }

    private synchronized KvOperation append(KvOperation operation) throws IOException {
        history.write(operation.toJson());
        history.newLine();
        history.flush();
        summary.add(operation);
        return operation;
    }
}

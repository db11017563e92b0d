package io.rdma.sample;

import io.rdma.spring.connection.RdmaConnections;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.provider.simulated.FabricControl;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Grafana dashboard of docs/grafana: its JSON is a dashboard Grafana can import, and every
 * query of every panel returns series from a real Prometheus (Debian's {@code prometheus}
 * package; {@code -Dprometheus=<path>} or on the PATH) that scrapes the sample app under load
 * with docs/grafana/prometheus.yml, so a renamed meter, a wrong label or a broken expression
 * fails here instead of showing an empty panel.
 */
class GrafanaDashboardTests {

    private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "rdma-dashboard.json");
    private static final Path SCRAPE_CONFIG = Path.of("..", "docs", "grafana", "prometheus.yml");
    private static final String DATASOURCE = "${datasource}";
    /**
     * Grafana's {@code $__rate_interval} here: four times the test's 1 s scrape interval at least,
     * as Grafana computes it, and long enough that the port events the test raises a few seconds
     * before it queries are still inside the async events panel's window.
     */
    private static final String RATE_INTERVAL = "30s";
    /** {@code label_values(selector, label)}: a query variable's definition. */
    private static final Pattern LABEL_VALUES = Pattern.compile("^label_values\\((.+),\\s*(\\w+)\\)$");
    private static final Pattern VARIABLE = Pattern.compile("\\$(?:\\{(\\w+)}|(\\w+))");
    /**
     * Targets ("panel title/refId") with no series on the simulated fabric, and why. Each must
     * still be a valid query, and must still return nothing: a target that gains series here
     * loses its exemption.
     */
    private static final Map<String, String> NO_SERIES_ON_THE_SIMULATED_FABRIC = Map.of(
            "Port errors and retries/C", "transport error and retry counters (mlx5's and rxe's hw_counters) exist only "
                    + "on hardware; the simulated fabric's ports count packets, data, discards and link downs only");

    private final JsonMapper json = JsonMapper.builder().build();
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path work;

    /** What Grafana needs to import it and what the live test relies on, checked without Prometheus. */
    @Test
    void theDashboardIsImportableWithTheDatasourceAsAVariable() throws IOException {
        JsonNode dashboard = json.readTree(Files.readString(DASHBOARD));
        assertThat(dashboard.path("schemaVersion").asInt()).as("the schema the JSON is written to").isEqualTo(39);
        assertThat(dashboard.path("uid").asString()).isNotBlank();
        Map<String, JsonNode> variables = variables(dashboard);
        assertThat(variables).as("variables").containsKey("datasource");
        assertThat(variables.get("datasource").path("type").asString()).isEqualTo("datasource");
        assertThat(variables.get("datasource").path("query").asString()).isEqualTo("prometheus");
        for (JsonNode variable : variables.values()) {
            if (variable.path("type").asString().equals("query")) {
                assertThat(variable.path("datasource").path("uid").asString()).as(variable.path("name").asString())
                        .isEqualTo(DATASOURCE);
                assertThat(variable.path("definition").asString()).as(variable.path("name").asString())
                        .matches(LABEL_VALUES);
            }
        }

        Set<Integer> ids = new HashSet<>();
        List<JsonNode> placed = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            String title = panel.path("title").asString();
            assertThat(ids.add(panel.path("id").asInt())).as("%s: panel id unique", title).isTrue();
            assertThat(panel.path("datasource").path("uid").asString()).as(title).isEqualTo(DATASOURCE);
            JsonNode grid = panel.path("gridPos");
            assertThat(grid.path("x").asInt() + grid.path("w").asInt()).as("%s: within the 24 columns", title)
                    .isBetween(1, 24);
            for (JsonNode other : placed) {
                assertThat(overlap(grid, other.path("gridPos"))).as("%s overlaps %s", title, other.path("title").asString())
                        .isFalse();
            }
            placed.add(panel);
            assertThat(panel.path("targets")).as("%s: targets", title).isNotEmpty();
            Set<String> refIds = new HashSet<>();
            for (JsonNode target : panel.path("targets")) {
                String refId = target.path("refId").asString();
                assertThat(refIds.add(refId)).as("%s: refId %s unique", title, refId).isTrue();
                assertThat(target.path("datasource").path("uid").asString()).as("%s/%s", title, refId).isEqualTo(DATASOURCE);
                Matcher variable = VARIABLE.matcher(target.path("expr").asString());
                while (variable.find()) {
                    String name = variable.group(1) != null ? variable.group(1) : variable.group(2);
                    assertThat(name).as("%s/%s: a dashboard variable or $__rate_interval", title, refId)
                            .isIn(concat(variables.keySet(), "__rate_interval"));
                }
            }
        }
        assertThat(NO_SERIES_ON_THE_SIMULATED_FABRIC.keySet()).as("exempted targets are the dashboard's")
                .isSubsetOf(targets(dashboard).keySet());
    }

    /**
     * The sample app on the simulated fabric with its profile {@code flows} (an Ethernet device
     * with a counted flow beside the sample's InfiniBand one), {@code GET /echo} in a loop, a port taken
     * down and up again so that there are async events, and Prometheus scraping it every second
     * with the shipped scrape configuration; then the variables and every panel target are
     * queried as Grafana would send them, with "All" selected.
     */
    @Test
    void everyPanelQueryReturnsSeriesFromPrometheusScrapingTheSampleUnderLoad() throws Exception {
        Path prometheus = PrometheusTools.installed("prometheus");
        JsonNode dashboard = json.readTree(Files.readString(DASHBOARD));
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(EchoApplication.class)
                .run("--server.port=0", "--spring.profiles.active=flows");
                EchoLoad load = new EchoLoad(portOnceConnected(app));
                PrometheusServer server = new PrometheusServer(prometheus, work, load.port)) {
            awaitScrapes(server, 5);

            FabricControl fabric = app.getBean(Verbs.class).extension(FabricControl.class).orElseThrow();
            fabric.setPortState("roce0", 1, PortState.DOWN);
            awaitSeries(server, "rdma_state_id{device=\"roce0\", port=\"1\"} != 4");
            fabric.setPortState("roce0", 1, PortState.ACTIVE);
            awaitSeries(server, "rdma_async_events_total{device=\"roce0\", type=\"port_active\"} > 0");
            awaitSeries(server, "rdma_state_id{device=\"roce0\", port=\"1\"} == 4");

            Map<String, String> values = variableValues(server, dashboard);
            List<String> problems = new ArrayList<>();
            targets(dashboard).forEach((target, expr) -> {
                String query = substitute(expr, values);
                JsonNode result;
                try {
                    result = server.query(query);
                } catch (AssertionError rejected) {
                    problems.add("panel " + target + ": " + rejected.getMessage());
                    return;
                }
                String exemption = NO_SERIES_ON_THE_SIMULATED_FABRIC.get(target);
                if (exemption == null && result.isEmpty()) {
                    problems.add("panel " + target + " has no series: " + query);
                } else if (exemption != null && !result.isEmpty()) {
                    problems.add("panel " + target + " is exempted (" + exemption + ") but has series now: " + result);
                }
            });
            assertThat(problems).as("panel queries, with %s echoes answered", load.answered).isEmpty();
            assertThat(load.answered).as("echo round trips answered during the test").hasPositiveValue();
            assertThat(load.failures).as("echo round trips that failed").isEmpty();
        }
    }

    /** Each query variable resolved in order, as Grafana's "All" puts it in a query: {@code (a|b)}. */
    private Map<String, String> variableValues(PrometheusServer server, JsonNode dashboard) {
        Map<String, String> values = new LinkedHashMap<>();
        for (JsonNode variable : variables(dashboard).values()) {
            if (!variable.path("type").asString().equals("query")) {
                continue;
            }
            String name = variable.path("name").asString();
            Matcher definition = LABEL_VALUES.matcher(variable.path("definition").asString());
            assertThat(definition.matches()).as("variable %s: label_values(selector, label)", name).isTrue();
            String selector = substitute(definition.group(1), values);
            Set<String> labelValues = new TreeSet<>();
            for (JsonNode series : server.query(selector)) {
                JsonNode value = series.path("metric").path(definition.group(2));
                if (!value.isMissingNode()) {
                    labelValues.add(value.asString());
                }
            }
            assertThat(labelValues).as("variable %s: %s", name, selector).isNotEmpty();
            values.put(name, "(" + String.join("|", labelValues.stream().map(GrafanaDashboardTests::regexEscape).toList())
                    + ")");
        }
        return values;
    }

    /** Grafana's escaping of a multi-value variable's values for a Prometheus regex matcher. */
    private static String regexEscape(String value) {
        return value.replaceAll("[\\\\^$.|?*+()\\[\\]{}']", "\\\\\\\\$0");
    }

    private static String substitute(String expr, Map<String, String> values) {
        return VARIABLE.matcher(expr).replaceAll(variable -> {
            String name = variable.group(1) != null ? variable.group(1) : variable.group(2);
            String value = name.equals("__rate_interval") ? RATE_INTERVAL : values.get(name);
            assertThat(value).as("a value for $%s in %s", name, expr).isNotNull();
            return Matcher.quoteReplacement(value);
        });
    }

    private static Map<String, JsonNode> variables(JsonNode dashboard) {
        Map<String, JsonNode> variables = new LinkedHashMap<>();
        dashboard.path("templating").path("list").forEach(variable -> variables.put(variable.path("name").asString(), variable));
        return variables;
    }

    /** Every target's expression, by "panel title/refId". */
    private static Map<String, String> targets(JsonNode dashboard) {
        Map<String, String> targets = new LinkedHashMap<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                targets.put(panel.path("title").asString() + "/" + target.path("refId").asString(),
                        target.path("expr").asString());
            }
        }
        return targets;
    }

    private static boolean overlap(JsonNode a, JsonNode b) {
        return a.path("x").asInt() < b.path("x").asInt() + b.path("w").asInt()
                && b.path("x").asInt() < a.path("x").asInt() + a.path("w").asInt()
                && a.path("y").asInt() < b.path("y").asInt() + b.path("h").asInt()
                && b.path("y").asInt() < a.path("y").asInt() + a.path("h").asInt();
    }

    private static Set<String> concat(Set<String> names, String name) {
        Set<String> all = new HashSet<>(names);
        all.add(name);
        return all;
    }

    private static void awaitScrapes(PrometheusServer server, int scrapes) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            JsonNode up = server.query("count_over_time(up{job=\"" + server.job + "\"}[1m]) >= " + scrapes + " and up == 1");
            assertThat(up).as("%d successful scrapes; targets: %s", scrapes, server.targets()).isNotEmpty();
        });
    }

    private static void awaitSeries(PrometheusServer server, String query) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(server.query(query)).as(query).isNotEmpty());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** The sample's HTTP port, once its clients are connected: a call before that is answered 503. */
    private static int portOnceConnected(ConfigurableApplicationContext app) {
        ConnectedInstances.awaitBoth(app.getBean(RdmaConnections.class));
        return app.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    /** {@code GET /echo} in a loop on a virtual thread until closed, as a client of the sample would. */
    private final class EchoLoad implements AutoCloseable {

        final int port;
        final AtomicInteger answered = new AtomicInteger();
        final List<String> failures = new CopyOnWriteArrayList<>();
        private volatile boolean running = true;
        private final Thread thread;

        EchoLoad(int port) {
            this.port = port;
            this.thread = Thread.ofVirtual().name("echo-load").start(this::run);
        }

        private void run() {
            for (int i = 0; running; i++) {
                try {
                    HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + port + "/echo?message=load-" + i)).build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (response.statusCode() == 200 && response.body().equals("echo: LOAD-" + i)) {
                        answered.incrementAndGet();
                    } else {
                        failures.add(i + ": " + response.statusCode() + " " + response.body());
                    }
                    // a steady trickle, not a benchmark: the host's cores are shared with Prometheus
                    Thread.sleep(20);
                } catch (IOException | InterruptedException e) {
                    if (running) {
                        failures.add(i + ": " + e);
                    }
                }
            }
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join(Duration.ofSeconds(10));
        }
    }

    /**
     * Prometheus on a free loopback port with its storage in the test's directory, scraping the
     * app every second with docs/grafana/prometheus.yml, its one job's target replaced by the app.
     */
    private final class PrometheusServer implements AutoCloseable {

        final String job;
        private final int port;
        private final Path log;
        private final Process process;

        @SuppressWarnings("unchecked")
        PrometheusServer(Path prometheus, Path work, int appPort) throws IOException, InterruptedException {
            Yaml yaml = new Yaml();
            Map<String, Object> config = yaml.load(Files.readString(SCRAPE_CONFIG));
            ((Map<String, Object>) config.get("global")).put("scrape_interval", "1s");
            List<Map<String, Object>> scrapeConfigs = (List<Map<String, Object>>) config.get("scrape_configs");
            assertThat(scrapeConfigs).as("scrape_configs of %s", SCRAPE_CONFIG).hasSize(1);
            Map<String, Object> scrape = scrapeConfigs.getFirst();
            this.job = (String) scrape.get("job_name");
            scrape.put("static_configs", List.of(Map.of("targets", List.of("127.0.0.1:" + appPort))));
            Path configFile = work.resolve("prometheus.yml");
            Files.writeString(configFile, yaml.dump(config));

            this.port = freePort();
            this.log = work.resolve("prometheus.log");
            this.process = new ProcessBuilder(prometheus.toString(), "--config.file=" + configFile,
                    "--storage.tsdb.path=" + work.resolve("data"), "--web.listen-address=127.0.0.1:" + port)
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                awaitReady();
            } catch (RuntimeException | AssertionError notReady) {
                close();
                throw notReady;
            }
        }

        /** Until it answers on its port (refused connections while it starts are ignored) or dies. */
        private void awaitReady() {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).ignoreExceptions().untilAsserted(() -> {
                assertThat(process.isAlive()).as("prometheus runs; its log:\n%s", log()).isTrue();
                assertThat(get("/-/ready").statusCode()).as("prometheus ready").isEqualTo(200);
            });
        }

        /** The series of an instant query (the result vector); fails unless Prometheus accepted the query. */
        JsonNode query(String query) {
            try {
                HttpResponse<String> response = get("/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8));
                JsonNode body = json.readTree(response.body());
                assertThat(body.path("status").asString()).as("%s: %s", query, response.body()).isEqualTo("success");
                return body.path("data").path("result");
            } catch (IOException e) {
                throw new IllegalStateException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        /** The scrape targets' health and last error, for a failure message. */
        String targets() throws IOException, InterruptedException {
            return get("/api/v1/targets").body();
        }

        String log() throws IOException {
            return Files.readString(log);
        }

        private HttpResponse<String> get(String path) throws IOException, InterruptedException {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
    }
}

package io.rdma.boot.autoconfigure.endpoint;

import com.jayway.jsonpath.JsonPath;
import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.verbs.api.CompletionCounter;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.Unsigned64;

import java.io.IOException;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /actuator/rdma} over real HTTP, as an operator sees it, on the device under test with
 * {@code declarations/full.yml}: the JSON numbers, the 404s, and the completion counter write,
 * refused by default and working once enabled.
 */
class RdmaEndpointWebTests {

    private static final String RDMA = "/actuator/rdma";
    /** 2^63 + 5: a signed reading would print it negative. */
    private static final long ABOVE_SIGNED_RANGE = Long.MIN_VALUE + 5;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void showsTheValuesOfTheDeclaredResourcesAsUnsignedNumbers() throws Exception {
        try (ConfigurableApplicationContext application = start()) {
            CompletionCounter sends = application.getBean("sends", CompletionCounter.class);
            sends.setCompletions(ABOVE_SIGNED_RANGE);
            sends.setErrors(2);
            HttpResponse<String> response = get(application, RDMA);
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            String body = response.body();
            String device = "$.devices[0]";
            assertThat(JsonPath.<String>read(body, device + ".name")).isEqualTo(RdmaContextRunners.DEVICE);

            String counter = device + ".completionCounters[?(@.name == 'sends')]";
            assertThat(JsonPath.<List<Object>>read(body, counter + ".completions"))
                    .containsExactly(Unsigned64.toBigInteger(ABOVE_SIGNED_RANGE));
            assertThat(body).contains("\"completions\":9223372036854775813");
            assertThat(JsonPath.<List<Number>>read(body, counter + ".errors")).singleElement()
                    .satisfies(errors -> assertThat(errors.longValue()).isEqualTo(2));
            assertThat(body).contains("\"maxValue\":" + Unsigned64.toString(sends.maxValue()));
            assertThat(JsonPath.<List<String>>read(body, counter + ".mode")).containsExactly(sends.mode().name());

            assertThat(JsonPath.<List<String>>read(body, device + ".completionQueues[*].name"))
                    .containsExactly("cq0", "cq1");
            assertThat(JsonPath.<List<String>>read(body, device + ".completionQueues[*].polling"))
                    .containsExactly("POLLING", "EVENT");
            assertThat(JsonPath.<List<Map<String, Object>>>read(body, device + ".completionQueues[*].completions"))
                    .hasSize(2);

            QueuePair rpc = application.getBean("rpc", QueuePair.class);
            String queuePair = device + ".queuePairs[?(@.name == 'rpc')]";
            assertThat(JsonPath.<List<String>>read(body, queuePair + ".state")).containsExactly(rpc.state().name());
            assertThat(JsonPath.<List<Integer>>read(body, queuePair + ".qpNumber")).containsExactly(rpc.qpNumber());

            MemoryPool buffers = application.getBean("buffers", MemoryPool.class);
            String pool = device + ".memoryPools[?(@.name == 'buffers')]";
            assertThat(JsonPath.<List<Integer>>read(body, pool + ".capacity")).containsExactly(64);
            assertThat(JsonPath.<List<Integer>>read(body, pool + ".leased")).containsExactly(buffers.leasedCount());
            // keys and addresses stay hidden unless rdma.endpoint.show-keys says otherwise
            assertThat(JsonPath.<List<Object>>read(body, pool + ".keys")).containsOnlyNulls();
            assertThat(body).doesNotContain("rkey").doesNotContain("lkey");

            // PMA counters, the driver's hw_counters, or both (rxe0 on Debian 12): the port has at least one
            // kind, unless it is iWARP (portCountersOnTheDevice)
            Map<String, Object> portCounters = new HashMap<>(JsonPath.read(body, device + ".ports[0].counters"));
            portCounters.putAll(JsonPath.read(body, device + ".ports[0].hardwareCounters"));
            if (!portCountersOnTheDevice()) {
                assertThat(portCounters).isEmpty();
                return;
            }
            assertThat(portCounters).isNotEmpty().allSatisfy((name, value) ->
                    assertThat(value).as(name).isInstanceOfAny(Integer.class, Long.class, BigInteger.class)
                            .satisfies(number -> assertThat(new BigInteger(number.toString())).isNotNegative()));
        }
    }

    @Test
    void aDeviceAndAPortHaveTheirOwnPathsAndWhatIsNotThereIsA404() throws Exception {
        try (ConfigurableApplicationContext application = start()) {
            HttpResponse<String> device = get(application, RDMA + "/" + RdmaContextRunners.DEVICE);
            assertThat(device.statusCode()).as(device.body()).isEqualTo(200);
            assertThat(JsonPath.<String>read(device.body(), "$.name")).isEqualTo(RdmaContextRunners.DEVICE);
            assertThat(JsonPath.<List<String>>read(device.body(), "$.completionCounters[*].name"))
                    .containsExactly("sends", "recvs");

            HttpResponse<String> port = get(application, RDMA + "/" + RdmaContextRunners.DEVICE + "/1");
            assertThat(port.statusCode()).as(port.body()).isEqualTo(200);
            assertThat(JsonPath.<Integer>read(port.body(), "$.port")).isEqualTo(1);
            assertThat(JsonPath.<String>read(port.body(), "$.state")).isEqualTo("ACTIVE");
            assertThat(JsonPath.<Map<String, Object>>read(port.body(), "$.counters").size()
                    + JsonPath.<Map<String, Object>>read(port.body(), "$.hardwareCounters").size() > 0)
                    .as("the port shows counters").isEqualTo(portCountersOnTheDevice());

            assertThat(get(application, RDMA + "/ghost").statusCode()).isEqualTo(404);
            assertThat(get(application, RDMA + "/ghost/1").statusCode()).isEqualTo(404);
            assertThat(get(application, RDMA + "/" + RdmaContextRunners.DEVICE + "/9").statusCode()).isEqualTo(404);
            assertThat(get(application, RDMA + "/" + RdmaContextRunners.DEVICE + "/0").statusCode()).isEqualTo(404);
        }
    }

    @Test
    void counterWritesAreRefusedByDefaultNamingThePropertyThatAllowsThem() throws Exception {
        try (ConfigurableApplicationContext application = start()) {
            CompletionCounter sends = application.getBean("sends", CompletionCounter.class);
            sends.incrementCompletions(3);
            HttpResponse<String> refused = post(application, "sends", "{\"completions\": 0}");
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
            assertThat(JsonPath.<String>read(refused.body(), "$.error"))
                    .contains("rdma.endpoint.counter-writes.enabled=true");
            assertThat(sends.completions()).isEqualTo(3);
        }
    }

    @Test
    void anEnabledCounterWriteSetsAndResetsTheCounter() throws Exception {
        try (ConfigurableApplicationContext application = start("rdma.endpoint.counter-writes.enabled=true",
                "rdma.endpoint.show-keys=true")) {
            CompletionCounter sends = application.getBean("sends", CompletionCounter.class);
            BigInteger nearMax = Unsigned64.toBigInteger(sends.maxValue()).subtract(BigInteger.valueOf(5));
            HttpResponse<String> set = post(application, "sends",
                    "{\"completions\": " + nearMax + ", \"errors\": 7}");
            assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
            assertThat(Unsigned64.toBigInteger(sends.completions())).isEqualTo(nearMax);
            assertThat(sends.errors()).isEqualTo(7);
            assertThat(set.body()).contains("\"completions\":" + nearMax).contains("\"errors\":7");

            HttpResponse<String> reset = post(application, "sends", "{\"completions\": 0, \"errors\": 0}");
            assertThat(reset.statusCode()).as(reset.body()).isEqualTo(200);
            assertThat(sends.completions()).isZero();
            assertThat(sends.errors()).isZero();

            HttpResponse<String> onlyErrors = post(application, "sends", "{\"errors\": 4}");
            assertThat(onlyErrors.statusCode()).as(onlyErrors.body()).isEqualTo(200);
            assertThat(sends.completions()).isZero();
            assertThat(sends.errors()).isEqualTo(4);

            HttpResponse<String> aboveMax = post(application, "sends", "{\"completions\": "
                    + Unsigned64.toBigInteger(sends.maxValue()).add(BigInteger.ONE) + "}");
            assertThat(aboveMax.statusCode()).as(aboveMax.body()).isEqualTo(400);
            assertThat(post(application, "sends", "{}").statusCode()).isEqualTo(400);
            assertThat(post(application, "sends", "{\"completions\": -1}").statusCode()).isEqualTo(400);
            assertThat(sends.errors()).isEqualTo(4);
            assertThat(post(application, "ghost", "{\"completions\": 0}").statusCode()).isEqualTo(404);

            String pool = "$.devices[0].memoryPools[?(@.name == 'buffers')].keys";
            String body = get(application, RDMA).body();
            assertThat(JsonPath.<List<String>>read(body, pool + ".rkey")).singleElement().asString()
                    .matches("0x[0-9a-f]{8}");
            assertThat(JsonPath.<List<String>>read(body, pool + ".address")).singleElement().asString()
                    .matches("0x[0-9a-f]{16}");
        }
    }

    /**
     * Whether the device under test keeps port counters. An iWARP port has none: its PMA counters
     * come with management datagrams, which iWARP does not have, and siw keeps no hw_counters (what
     * siw0 shows: an empty {@code counters} and {@code hardwareCounters}).
     */
    private static boolean portCountersOnTheDevice() {
        return !RdmaContextRunners.deviceIsIwarp();
    }

    private static ConfigurableApplicationContext start(String... properties) {
        return new SpringApplicationBuilder(WebApplication.class)
                .properties("server.port=0", "spring.main.banner-mode=off",
                        "management.endpoints.web.exposure.include=rdma", RdmaContextRunners.PROVIDER_PROPERTY)
                .properties(properties)
                .initializers(RdmaContextRunners.declaration("full"))
                .run();
    }

    private HttpResponse<String> get(ConfigurableApplicationContext application, String path)
            throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri(application, path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(ConfigurableApplicationContext application, String counter, String json)
            throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri(application, RDMA + "/" + RdmaContextRunners.DEVICE + "/" + counter))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(ConfigurableApplicationContext application, String path) {
        return URI.create("http://localhost:" + application.getEnvironment().getProperty("local.server.port") + path);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class WebApplication {
    }
}

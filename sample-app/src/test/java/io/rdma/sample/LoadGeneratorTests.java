package io.rdma.sample;

import com.jayway.jsonpath.JsonPath;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** {@code sample.load.enabled=true} alone drives traffic through every declared queue pair, CQ and counter. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"sample.load.enabled=true", "sample.load.pause=1ms"})
class LoadGeneratorTests {

    @Value("${local.server.port}")
    int port;

    @Autowired
    LoadGenerator load;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void theMetersOfEveryDeclaredQueuePairMove() {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(load.rounds()).isGreaterThanOrEqualTo(20);
            String rdma = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/rdma"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
            for (String cq : List.of("cq0", "kv-cq")) {
                assertThat(JsonPath.<List<Integer>>read(rdma, "$.devices[0].completionQueues[?(@.name == '" + cq + "')]"
                        + ".completions.SUCCESS")).as(cq).singleElement().satisfies(count -> assertThat(count).isPositive());
            }
            for (String counter : List.of("sends", "kv-one-sided")) {
                assertThat(JsonPath.<List<Integer>>read(rdma, "$.devices[0].completionCounters[?(@.name == '" + counter
                        + "')].completions")).as(counter).singleElement().satisfies(count -> assertThat(count).isPositive());
            }
        });
    }
}

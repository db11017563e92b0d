package io.rdma.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** The service as it ships: provider auto (simulated here, without hardware), real HTTP. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class EchoApplicationTests {

    @Value("${local.server.port}")
    int port;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void echoesOverRdma() throws Exception {
        HttpResponse<String> response = get("/echo?message=hello");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("echo: HELLO");
    }

    @Test
    void healthIsUpWithTheRdmaPorts() throws Exception {
        HttpResponse<String> response = get("/actuator/health");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"status\":\"UP\"").contains("\"rdma\"").contains("ACTIVE");
    }

    @Test
    void rdmaEndpointAndPrometheusShowTheDeclaredResources() throws Exception {
        assertThat(get("/actuator/rdma").body()).contains("echo-client").contains("rxe0")
                .contains("\"echo#1\"").contains("\"state\":\"UP\"").contains("simulated")
                // u64 limits as exact JSON numbers and GUIDs in ibv_devinfo's form, never signed
                .contains("\"maxMrSize\":18446744073709551615")
                .containsPattern("\"nodeGuid\":\"[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{4}\"");
        get("/echo?message=counted");
        assertThat(get("/actuator/prometheus").body()).contains("rdma_cq_completions_total")
                .contains("rdma_comp_cntr_completions_total").contains("rdma_state_id")
                .contains("rdma_provider_info{");
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}

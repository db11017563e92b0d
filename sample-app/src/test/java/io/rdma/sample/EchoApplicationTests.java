package io.rdma.sample;

import io.rdma.spring.connection.RdmaConnections;

import com.jayway.jsonpath.JsonPath;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.context.support.GenericApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The service as it ships: provider auto (simulated here, without hardware), real HTTP. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class EchoApplicationTests {

    @Value("${local.server.port}")
    int port;

    private SampleHttp sample;

    @Autowired
    RdmaConnections connections;

    /** The clients connect to the service's instance in the background once the application has started. */
    @BeforeEach
    void awaitConnections() {
        sample = new SampleHttp(port);
        ConnectedInstances.awaitBoth(connections);
    }

    @Test
    void echoesOverRdma() throws Exception {
        HttpResponse<String> response = sample.get("/echo?message=hello");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("echo: HELLO");
    }

    @Test
    void healthIsUpWithTheRdmaPorts() throws Exception {
        HttpResponse<String> response = sample.get("/actuator/health");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"status\":\"UP\"").contains("\"rdma\"").contains("ACTIVE");
    }

    @Test
    void rdmaEndpointAndPrometheusShowTheDeclaredResources() throws Exception {
        assertThat(sample.get("/actuator/rdma").body()).contains("echo-client").contains("rxe0")
                .contains("\"echo#1\"").contains("\"state\":\"UP\"").contains("simulated")
                // u64 limits as exact JSON numbers and GUIDs in ibv_devinfo's form, never signed
                .contains("\"maxMrSize\":18446744073709551615")
                .containsPattern("\"nodeGuid\":\"[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{4}\"");
        sample.get("/echo?message=counted");
        // values, not only names: the echo's completions on cq0, the peer's reply on 'sends' (whose
        // completion may come a moment after the reply arrived)
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            String rdma = sample.get("/actuator/rdma").body();
            assertThat(JsonPath.<List<Integer>>read(rdma, "$.devices[0].completionQueues[?(@.name == 'cq0')]"
                    + ".completions.SUCCESS")).singleElement().satisfies(count -> assertThat(count).isPositive());
            assertThat(JsonPath.<List<Integer>>read(rdma, "$.devices[0].completionCounters[?(@.name == 'sends')]"
                    + ".completions")).singleElement().satisfies(count -> assertThat(count).isPositive());
        });
        assertThat(sample.get("/actuator/rdma/nic/1").statusCode()).isEqualTo(200);
        assertThat(sample.get("/actuator/rdma/nic/2").statusCode()).isEqualTo(404);
        assertThat(sample.get("/actuator/prometheus").body()).contains("rdma_cq_completions_total")
                .contains("rdma_comp_cntr_completions_total").contains("rdma_state_id")
                .contains("rdma_provider_info{");
    }

    /**
     * The test-aot run (sample-app's {@code pom.xml}) sets {@code spring.aot.enabled}: its context
     * must then be the one generated ahead of time, which has no annotation processing left to do.
     */
    @Test
    void theContextIsGeneratedAheadOfTimeExactlyWhenAotIsEnabled(@Autowired GenericApplicationContext context) {
        assertThat(context.containsBeanDefinition(AnnotationConfigUtils.CONFIGURATION_ANNOTATION_PROCESSOR_BEAN_NAME))
                .as("configuration classes processed at run time").isEqualTo(!Boolean.getBoolean("spring.aot.enabled"));
    }

}

package io.rdma.sample;

import io.rdma.spring.connection.RdmaConnections;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.TransportType;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample on an iWARP device, siw0, which has no atomics: the key-value store cannot lock a
 * bucket, so PUT and DELETE are refused at once with 501 and the reason, while GET (an RDMA READ)
 * and the echo (sends, its correlation id in band) work over the device. On the simulated fabric
 * in {@code mvn verify} (siw0 described there as iWARP), on the real siw0 in the Soft-iWARP guest
 * ({@code -Drdma.provider=native}, .ci/run's sample-on-siw0).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "RDMA_DEVICE=siw0",
        "rdma.simulated.devices.siw0.transport=iwarp",
        "rdma.simulated.devices.siw0.link-layer=ethernet"})
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class KvStoreWithoutAtomicsTests {

    @Value("${local.server.port}")
    int port;

    @Autowired
    RdmaConnections connections;

    @Autowired
    DeviceContext device;

    private SampleHttp sample;

    @BeforeEach
    void awaitConnections() {
        sample = new SampleHttp(port);
        ConnectedInstances.awaitBoth(connections);
    }

    @Test
    void writesAreRefusedWithTheReasonAndReadsAndTheEchoWork() throws Exception {
        assertThat(device.deviceName()).isEqualTo("siw0");
        assertThat(device.device().transportType()).isEqualTo(TransportType.IWARP);
        for (HttpResponse<String> write : List.of(sample.put("colour", "blue"), sample.delete("/kv/colour"))) {
            assertThat(write.statusCode()).as(write.request().method()).isEqualTo(501);
            assertThat(write.body()).contains("device siw0 has no atomics");
        }
        assertThat(sample.get("/kv/colour").statusCode()).as("GET, an RDMA READ of the bucket").isEqualTo(404);
        HttpResponse<String> echo = sample.get("/echo?message=over-iwarp");
        assertThat(echo.statusCode()).isEqualTo(200);
        assertThat(echo.body()).isEqualTo("echo: OVER-IWARP");
    }
}

package io.rdma.sample;

import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.template.RdmaOperations;
import io.rdma.verbs.api.RemoteBuffer;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client that dies holding a bucket's lock keeps it no longer than the lease: here a "client"
 * takes the lock with the template's compare-and-swap and never lets go; a PUT to a key of that
 * bucket waits the lease out, takes the lock over and succeeds, and the bucket is unlocked after.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"sample.kv.lease=1s", "sample.kv.timeout=10s"})
class KvLeaseTests {

    private static final String KEY = "leased";

    @Value("${local.server.port}")
    int port;

    @Autowired
    RdmaOperations rdma;

    @Autowired
    RdmaConnections connections;

    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void awaitConnections() {
        ConnectedInstances.awaitBoth(connections);
    }

    @Test
    void aLockWhoseHolderDiedIsTakenOverOnceItsLeaseHasPassed() throws Exception {
        String instance = connections.group("kv-client").ownerOf(KEY);
        KvStoreLayout layout = rdma.convertSendAndReceive(instance, new KvControl.LayoutRequest(), KvStoreLayout.class)
                .get(10, TimeUnit.SECONDS);
        RemoteBuffer lockWord = layout.lockWord(layout.bucketOf(KEY));
        long unlocked = rdma.fetchAndAdd(instance, lockWord, 0).get(10, TimeUnit.SECONDS);
        assertThat(KvBucket.isLocked(unlocked)).as("the bucket is free before the dead client takes it").isFalse();
        assertThat(rdma.compareAndSwap(instance, lockWord, unlocked, unlocked + 1).get(10, TimeUnit.SECONDS))
                .as("the dead client's lock").isEqualTo(unlocked);

        long started = System.nanoTime();
        HttpResponse<Void> put = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/kv/" + KEY))
                .PUT(HttpRequest.BodyPublishers.ofString("after the lease")).build(), HttpResponse.BodyHandlers.discarding());
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(put.statusCode()).as("the PUT took the lock over").isEqualTo(204);
        assertThat(took).as("it waited the lease out").isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        HttpResponse<String> read = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/kv/" + KEY))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(read.body()).isEqualTo("after the lease");
        long after = rdma.fetchAndAdd(instance, lockWord, 0).get(10, TimeUnit.SECONDS);
        assertThat(KvBucket.isLocked(after)).as("the bucket is free again").isFalse();
        assertThat(after).as("the dead client (+1), the take-over (+2) and its unlock (+1), the PUT's lock and unlock (+2)")
                .isEqualTo(unlocked + 6);
    }
}

package io.rdma.sample;

import io.rdma.spring.connection.RdmaConnections;

import com.jayway.jsonpath.JsonPath;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key-value store over real HTTP on whichever provider the system properties select, as
 * {@link EchoOnSelectedProviderTests} runs the echo: the simulated fabric in {@code mvn verify},
 * rxe0 with {@code -Drdma.provider=native} in the Soft-RoCE guest. Sizes are small enough for an
 * emulated guest and raised with {@code sample-test.kv-*} system properties.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class KvStoreOnSelectedProviderTests {

    @Value("${local.server.port}")
    int port;

    @Value("${rdma.devices.nic.protection-domains.pd0.memory-pools.kv-store.count}")
    int buckets;

    @Value("${sample.kv.slots-per-bucket}")
    int slotsPerBucket;

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
    void putThenGetReturnsTheValueAndTheServerIndexesTheKey() throws Exception {
        assertThat(sample.put("colour", "blue").statusCode()).isEqualTo(204);

        HttpResponse<String> read = sample.get("/kv/colour");
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(read.body()).isEqualTo("blue");
        assertThat(sample.get("/kv").body()).contains("\"colour\"");
    }

    @Test
    void aSecondPutOverwritesInTheSameSlot() throws Exception {
        sample.put("size", "small");
        sample.put("size", "a rather larger value than before");

        assertThat(sample.get("/kv/size").body()).isEqualTo("a rather larger value than before");
        assertThat(sample.get("/kv").body()).containsOnlyOnce("\"size\"");
    }

    @Test
    void aMissingKeyIsNotFoundAndDeletingItToo() throws Exception {
        assertThat(sample.get("/kv/never-stored").statusCode()).isEqualTo(404);
        assertThat(sample.delete("/kv/never-stored").statusCode()).isEqualTo(404);
    }

    @Test
    void aDeletedKeyIsGone() throws Exception {
        sample.put("shape", "round");
        assertThat(sample.delete("/kv/shape").statusCode()).isEqualTo(204);

        assertThat(sample.get("/kv/shape").statusCode()).isEqualTo(404);
        assertThat(sample.get("/kv").body()).doesNotContain("\"shape\"");
    }

    @Test
    void aValueLargerThanASlotIsRefused() throws Exception {
        assertThat(sample.put("big", "x".repeat(4096)).statusCode()).isEqualTo(413);
    }

    /**
     * A form body (what {@code curl --data} sends unless told otherwise) is parsed into request
     * parameters before the controller could read it: it is refused, rather than stored empty.
     */
    @Test
    void aValueSentAsAFormIsRefusedNotStoredEmpty() throws Exception {
        HttpResponse<String> form = sample.send(HttpRequest.newBuilder(sample.uri("/kv/form"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .PUT(HttpRequest.BodyPublishers.ofString("value-1")));

        assertThat(form.statusCode()).isEqualTo(415);
        assertThat(sample.get("/kv/form").statusCode()).as("nothing stored").isEqualTo(404);
    }

    /**
     * Writers overwrite a few keys with values whose every byte says which write it was, while
     * readers read them: each value read must be one written, whole, never a mix of two. Keys
     * share buckets with each other's writes in flight, so reads overlap writes of their bucket.
     */
    @Test
    void concurrentReadersSeeWholeValuesOnly() throws Exception {
        int keys = 3;
        int writers = Integer.getInteger("sample-test.kv-writers", 4);
        int readers = Integer.getInteger("sample-test.kv-readers", 4);
        int operations = Integer.getInteger("sample-test.kv-operations-per-client", 10);
        int valueLength = 200; // most of a slot, so that a READ overlapping a WRITE has many bytes to tear
        for (int key = 0; key < keys; key++) {
            sample.put("race-" + key, value('-', valueLength));
        }
        Map<String, String> problems = new ConcurrentHashMap<>();
        List<CompletableFuture<Void>> clients = new ArrayList<>();
        for (int writer = 0; writer < writers; writer++) {
            char mark = (char) ('a' + writer);
            clients.add(client(() -> {
                for (int i = 0; i < operations; i++) {
                    HttpResponse<String> response = sample.put("race-" + i % keys, value(mark, valueLength));
                    if (response.statusCode() != 204) {
                        problems.put("writer " + mark + " put " + i, response.statusCode() + " " + response.body());
                    }
                }
            }));
        }
        for (int reader = 0; reader < readers; reader++) {
            int id = reader;
            clients.add(client(() -> {
                for (int i = 0; i < operations; i++) {
                    HttpResponse<String> response = sample.get("/kv/race-" + i % keys);
                    String body = response.body();
                    if (response.statusCode() != 200 || body.length() != valueLength
                            || body.chars().anyMatch(c -> c != body.charAt(0))) {
                        problems.put("reader " + id + " get " + i, response.statusCode() + " " + body);
                    }
                }
            }));
        }
        // a guard against a hang, not a speed goal
        CompletableFuture.allOf(clients.toArray(CompletableFuture[]::new)).get(180, TimeUnit.SECONDS);
        assertThat(problems).as("torn or failed operations").isEmpty();
    }

    /**
     * As many new keys as a bucket has slots, all hashing to the same bucket, put at once: each
     * writer's READ may show the same free slot, and only the one whose compare-and-swap on the
     * bucket's lock word wins writes it; the others read again and take the next free slot. Then
     * the bucket is full and one more key is refused.
     */
    @Test
    void newKeysPutAtOnceIntoOneBucketEachGetASlotOfTheirOwn() throws Exception {
        KvStoreLayout layout = new KvStoreLayout(0, 0, buckets, 1024, slotsPerBucket, 0);
        // a bucket that the other tests' keys left empty
        List<String> stored = JsonPath.read(sample.get("/kv").body(), "$");
        int bucket = IntStream.range(0, buckets)
                .filter(candidate -> stored.stream().noneMatch(key -> layout.bucketOf(key) == candidate))
                .findFirst().orElseThrow();
        List<String> sameBucket = new ArrayList<>();
        for (int i = 0; sameBucket.size() <= slotsPerBucket; i++) {
            if (layout.bucketOf("crowd-" + i) == bucket) {
                sameBucket.add("crowd-" + i);
            }
        }
        List<String> crowd = sameBucket.subList(0, slotsPerBucket);
        Map<String, String> problems = new ConcurrentHashMap<>();
        List<CompletableFuture<Void>> clients = new ArrayList<>();
        for (String key : crowd) {
            clients.add(client(() -> {
                HttpResponse<String> response = sample.put(key, "value of " + key);
                if (response.statusCode() != 204) {
                    problems.put(key, response.statusCode() + " " + response.body());
                }
            }));
        }
        CompletableFuture.allOf(clients.toArray(CompletableFuture[]::new)).get(180, TimeUnit.SECONDS);
        assertThat(problems).isEmpty();

        for (String key : crowd) {
            assertThat(sample.get("/kv/" + key).body()).isEqualTo("value of " + key);
        }
        assertThat(sample.put(sameBucket.getLast(), "one too many").statusCode()).as("a key for a full bucket").isEqualTo(507);
        for (String key : crowd) {
            assertThat(sample.delete("/kv/" + key).statusCode()).isEqualTo(204);
        }
    }

    private CompletableFuture<Void> client(Operations operations) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                operations.run();
                done.complete(null);
            } catch (Exception e) {
                done.completeExceptionally(e);
            }
        });
        return done;
    }

    private interface Operations {
        void run() throws Exception;
    }

    private static String value(char mark, int length) {
        return String.valueOf(mark).repeat(length);
    }
}

package io.rdma.sample;

import io.rdma.spring.channel.RdmaChannel;
import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.template.RdmaChannelDownException;
import io.rdma.spring.template.RdmaOperationException;
import io.rdma.spring.template.RdmaOperations;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.provider.simulated.FabricControl;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * An unlock that the connection's failure cut off (what a partition does to a writer between its
 * write and its unlock) is posted again once the connection is back, so the bucket is free then
 * and not only after its lease (60 s here, longer than the PUT's timeout): the client under test
 * fails its instance's queue pair just before its first unlock is posted, through the simulated
 * fabric, and the connection reconnects by itself.
 */
@SpringBootTest(properties = {"rdma.provider=simulated", "sample.kv.lease=60s", "sample.kv.timeout=10s"})
class KvCutOffUnlockTests {

    private static final String KEY = "cut-off";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Autowired
    RdmaOperations rdma;

    @Autowired
    RdmaConnections connections;

    @Autowired
    DeviceContext device;

    @Autowired
    RdmaChannels channels;

    @Autowired
    Verbs verbs;

    @Autowired
    SampleProperties properties;

    @Autowired
    ConfigurableApplicationContext context;

    @Test
    void anUnlockCutOffByTheConnectionsFailureIsPostedAgainOnceItIsBack() throws Exception {
        ConnectedInstances.awaitBoth(connections);
        String instance = connections.group("kv-client").ownerOf(KEY);
        KvLockWord lockWord = KvLockWord.of(rdma, instance, KEY);
        long before = lockWord.read();
        assertThat(KvBucket.isLocked(before)).as("the bucket is free before the PUT").isFalse();

        FabricControl fabric = verbs.extension(FabricControl.class).orElseThrow();
        AtomicBoolean cut = new AtomicBoolean();
        KvClient client = new KvClient(failingBeforeFirstUnlock(() -> {
            RdmaChannel channel = Objects.requireNonNull(channels.get(instance));
            fabric.failQueuePair("rxe0", channel.queuePair().qpNumber());
        }, cut), connections, properties, device);
        context.addApplicationListener(ApplicationListener.forPayload(client::connectionChanged));

        assertThatThrownBy(() -> client.put(KEY, bytes("written, then cut off")))
                .isInstanceOfAny(RdmaChannelDownException.class, RdmaOperationException.class);
        assertThat(cut).as("the unlock was cut off").isTrue();

        await("the cut-off unlock posted again once the connection is back").atMost(WAIT)
                .ignoreExceptions().until(() -> !KvBucket.isLocked(KvLockWord.of(rdma, instance, KEY).read()));
        long started = System.nanoTime();
        client.put(KEY, bytes("after the connection came back"));
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the PUT found the bucket free, no lease waited out")
                .isLessThan(properties.kv().timeout());
        assertThat(client.get(KEY)).hasValueSatisfying(value ->
                assertThat(new String(value, StandardCharsets.UTF_8)).isEqualTo("after the connection came back"));
        assertThat(lockWord.read())
                .as("the cut-off PUT's lock and its unlock posted again (+2), the second PUT's lock and unlock (+2);"
                        + " no take-over").isEqualTo(before + 4);
    }

    /**
     * The application's template, except that before the first unlock (a compare-and-swap of an odd,
     * held, lock word to the next) it runs {@code cutOff}.
     */
    private RdmaOperations failingBeforeFirstUnlock(Runnable cutOff, AtomicBoolean cut) {
        return InterceptedOperations.of(rdma, (method, arguments) -> {
            if (method.getName().equals("compareAndSwap") && arguments[2] instanceof Long expected
                    && arguments[3] instanceof Long desired && KvBucket.isLocked(expected)
                    && desired == expected + 1 && cut.compareAndSet(false, true)) {
                cutOff.run();
            }
            return null;
        });
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

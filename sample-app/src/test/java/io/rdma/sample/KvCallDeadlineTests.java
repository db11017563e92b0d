package io.rdma.sample;

import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.template.RdmaOperations;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.RemoteBuffer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * A call of the key-value client answers within its timeout whatever it waits for, and what must
 * still end after it has gone ends without it, taking no lock for it: on rxe0 under emulation a
 * PUT's unlock or a compare-and-swap posted before the deadline could complete seconds after it,
 * and the callers (HTTP clients with their own timeouts) saw no answer at all. Each test delays one
 * operation of the application's template (it still runs, later) for a client of its own. The
 * properties are {@link KvCutOffUnlockTests}'s, so the tests share one application context.
 */
@SpringBootTest(properties = {"rdma.provider=simulated", "sample.kv.lease=60s", "sample.kv.timeout=10s"})
class KvCallDeadlineTests {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    /** What a call may take beyond its timeout: its own work after the deadline, on a busy CI host. */
    private static final Duration MARGIN = Duration.ofSeconds(1);
    /** How late the delayed operation completes: well past the caller's deadline. */
    private static final Executor LATER = CompletableFuture.delayedExecutor(3 * TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);

    @Autowired
    RdmaOperations rdma;

    @Autowired
    RdmaConnections connections;

    @Autowired
    DeviceContext device;

    @Autowired
    SampleProperties properties;

    @BeforeEach
    void awaitConnections() {
        ConnectedInstances.awaitBoth(connections);
    }

    @Test
    void aWriteWhoseUnlockWaitsIsAnsweredByItsDeadlineAndTheUnlockEndsWithoutIt() throws Exception {
        String key = "deadline-unlock";
        String instance = connections.group("kv-client").ownerOf(key);
        KvLockWord lockWord = KvLockWord.of(rdma, instance, key);
        long before = lockWord.read();
        KvClient client = clientOf(InterceptedOperations.of(rdma, (method, arguments) ->
                isUnlock(method.getName(), arguments)
                        ? CompletableFuture.supplyAsync(() -> null, LATER).thenCompose(any -> rdma.compareAndSwap(
                                (String) arguments[0], (RemoteBuffer) arguments[1],
                                (Long) arguments[2], (Long) arguments[3]))
                        : null));

        long started = System.nanoTime();
        client.put(key, bytes("written before the deadline"));
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .as("the acknowledged PUT answered while its unlock waited").isLessThan(TIMEOUT.plus(MARGIN));

        await("the unlock, ended without the caller").atMost(Duration.ofSeconds(30))
                .until(() -> lockWord.read() == before + 2);
        assertThat(client.get(key)).hasValueSatisfying(value ->
                assertThat(new String(value, StandardCharsets.UTF_8)).isEqualTo("written before the deadline"));
    }

    @Test
    void aLockTakenAfterItsCallerGaveUpIsLetGoAtOnceAndNothingIsWritten() throws Exception {
        String key = "deadline-lock";
        String instance = connections.group("kv-client").ownerOf(key);
        KvClient writer = clientOf(rdma);
        writer.put(key, bytes("the value before"));
        KvLockWord lockWord = KvLockWord.of(rdma, instance, key);
        long before = lockWord.read();
        AtomicBoolean delayed = new AtomicBoolean();
        KvClient client = clientOf(InterceptedOperations.of(rdma, (method, arguments) -> {
            if (isLock(method.getName(), arguments) && delayed.compareAndSet(false, true)) {
                // posted at once (it takes the lock), its completion seen only well after the deadline
                CompletableFuture<Long> posted = new PostedOperation<>();
                rdma.compareAndSwap((String) arguments[0], (RemoteBuffer) arguments[1],
                        (Long) arguments[2], (Long) arguments[3]).thenAcceptAsync(posted::complete, LATER);
                return posted;
            }
            return null;
        }));

        long started = System.nanoTime();
        assertThat(catchThrowable(() -> client.put(key, bytes("never to be written"))))
                .isInstanceOf(TimeoutException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the PUT gave up at its deadline")
                .isLessThan(TIMEOUT.plus(MARGIN));
        assertThat(KvBucket.isLocked(lockWord.read())).as("the lock taken for the caller that gave up").isTrue();

        await("the late lock let go").atMost(Duration.ofSeconds(30)).until(() -> lockWord.read() == before + 2);
        assertThat(writer.get(key)).hasValueSatisfying(value ->
                assertThat(new String(value, StandardCharsets.UTF_8)).isEqualTo("the value before"));
    }

    @Test
    void theLayoutRequestsWaitCountsInTheCallsTimeout() throws Exception {
        String key = "deadline-layout";
        Duration layoutDelay = TIMEOUT.multipliedBy(9).dividedBy(10); // a timeout each: 3.8 s, well past the bound
        KvClient client = clientOf(InterceptedOperations.of(rdma, (method, arguments) -> {
            if (method.getName().equals("convertSendAndReceive") && arguments[1] instanceof KvControl.LayoutRequest) {
                return CompletableFuture.supplyAsync(() -> null,
                                CompletableFuture.delayedExecutor(layoutDelay.toMillis(), TimeUnit.MILLISECONDS))
                        .thenCompose(any -> rdma.convertSendAndReceive((String) arguments[0], arguments[1],
                                KvStoreLayout.class));
            }
            // a lock that waits for send-queue room the whole time
            return isLock(method.getName(), arguments) ? new CompletableFuture<Long>() : null;
        }));

        long started = System.nanoTime();
        assertThat(catchThrowable(() -> client.put(key, bytes("value")))).isInstanceOf(TimeoutException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .as("layout (%s) and lock waited for within one timeout", layoutDelay)
                .isLessThan(TIMEOUT.plus(MARGIN));
    }

    private KvClient clientOf(RdmaOperations operations) {
        return new KvClient(operations, connections, new SampleProperties(properties.echo(),
                new SampleProperties.Kv(TIMEOUT, 4, null), properties.load()), device);
    }

    /** A compare-and-swap of a free (even) lock word to the next: a writer's lock. */
    private static boolean isLock(String method, Object[] arguments) {
        return method.equals("compareAndSwap") && arguments[2] instanceof Long expected
                && arguments[3] instanceof Long desired && !KvBucket.isLocked(expected) && desired == expected + 1;
    }

    /** A compare-and-swap of a held (odd) lock word to the next: a writer's unlock. */
    private static boolean isUnlock(String method, Object[] arguments) {
        return method.equals("compareAndSwap") && arguments[2] instanceof Long expected
                && arguments[3] instanceof Long desired && KvBucket.isLocked(expected) && desired == expected + 1;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** An operation the template has posted: cancelling it returns false, as the template's does. */
    private static final class PostedOperation<T> extends CompletableFuture<T> {
        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return false;
        }
    }
}

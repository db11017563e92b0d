package io.rdma.sample;

import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.template.RdmaOperations;
import io.rdma.verbs.api.DeviceContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Callers that need an instance's store layout at once (the first calls after a reconnection)
 * share one request, and each waits for it no longer than its own timeout: a server that does
 * not answer yet (a restarted one whose listener containers have not started, as on rxe0 under
 * emulation) costs each caller one timeout, not one more for each caller before it. The
 * properties are {@link KvCutOffUnlockTests}'s, so the two share one application context.
 */
@SpringBootTest(properties = {"rdma.provider=simulated", "sample.kv.lease=60s", "sample.kv.timeout=10s"})
class KvLayoutRequestTests {

    private static final int CALLERS = 6;
    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    @Autowired
    RdmaOperations rdma;

    @Autowired
    RdmaConnections connections;

    @Autowired
    DeviceContext device;

    @Autowired
    SampleProperties properties;

    @Test
    void callersShareOneLayoutRequestAndEachWaitsItsOwnTimeoutOnly() throws Exception {
        ConnectedInstances.awaitBoth(connections);
        AtomicInteger layoutRequests = new AtomicInteger();
        KvClient client = new KvClient(unansweredLayoutRequests(layoutRequests), connections,
                new SampleProperties(properties.echo(), new SampleProperties.Kv(TIMEOUT, 4, null),
                        properties.load()), device);

        List<Future<Duration>> callers = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int caller = 0; caller < CALLERS; caller++) {
                String key = "layout-" + caller;
                callers.add(threads.submit(() -> {
                    long started = System.nanoTime();
                    assertThat(catchThrowable(() -> client.get(key))).isInstanceOf(TimeoutException.class);
                    return Duration.ofNanos(System.nanoTime() - started);
                }));
            }
        }
        for (Future<Duration> caller : callers) {
            assertThat(caller.get()).as("one caller's wait, its timeout being " + TIMEOUT)
                    .isLessThan(TIMEOUT.multipliedBy(2));
        }
        assertThat(layoutRequests).as("layout requests made for " + CALLERS + " callers at once").hasValue(1);
    }

    /** The application's template, except that a layout request is counted and never answered. */
    private RdmaOperations unansweredLayoutRequests(AtomicInteger count) {
        return InterceptedOperations.of(rdma, (method, arguments) -> {
            if (method.getName().equals("convertSendAndReceive") && arguments[1] instanceof KvControl.LayoutRequest) {
                count.incrementAndGet();
                return new CompletableFuture<>();
            }
            return null;
        });
    }
}

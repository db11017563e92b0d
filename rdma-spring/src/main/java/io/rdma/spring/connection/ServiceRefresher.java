package io.rdma.spring.connection;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Reads the discovered services' instances again: each at its refresh interval, and at once when
 * asked. One thread reads them all, so a service connection is only ever followed by one thread.
 */
final class ServiceRefresher {

    private static final Log logger = LogFactory.getLog(ServiceRefresher.class);

    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("rdma-service-refresh").factory());

    /** Reads {@code service}'s instances now, and then every {@code interval} after each read. */
    void follow(ServiceConnection service, Duration interval) {
        thread.scheduleWithFixedDelay(() -> refresh(service), 0, interval.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Reads {@code service}'s instances again on the refresh thread, unless it stopped. */
    void refreshSoon(ServiceConnection service) {
        try {
            thread.execute(() -> refresh(service));
        } catch (RejectedExecutionException e) {
            // stopping meanwhile
        }
    }

    /** No read starts any more, one under way is interrupted; whether it ended within {@code timeout}. */
    boolean stop(Duration timeout) throws InterruptedException {
        thread.shutdownNow();
        return thread.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** A failing read is logged: thrown, it would end the scheduled reads of the service for good. */
    private static void refresh(ServiceConnection service) {
        try {
            service.refresh();
        } catch (RuntimeException e) {
            logger.error("Following the instances of a discovered service failed; the next read tries again", e);
        }
    }
}

package io.rdma.spring.connection;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The threads connections work on (listeners' accept loops, connects and reconnects, letting
 * peers go), and whether the application still runs, which ends their loops.
 *
 * <p>Platform threads, not virtual ones: accept loops, connects and disconnects block in
 * librdmacm (a native poll), which pins a virtual thread to its carrier; with as many carriers as
 * cores, a listener's accept loop on a small host would hold the only one, and the receive
 * handlers, which run on virtual threads, would never run.
 */
final class ConnectionThreads {

    private final ExecutorService executor = Executors.newThreadPerTaskExecutor(
            Thread.ofPlatform().daemon().name("rdma-connection-", 0).factory());
    private volatile boolean running;

    void start() {
        running = true;
    }

    boolean isRunning() {
        return running;
    }

    /** Runs {@code task} on a thread of its own, unless the application is stopping. Never blocks. */
    void execute(Runnable task) {
        if (running) {
            try {
                executor.execute(task);
            } catch (RejectedExecutionException e) {
                // stopping meanwhile: the shutdown closes what the task would have
            }
        }
    }

    /** No task starts any more, those running are interrupted; whether they all ended within {@code timeout}. */
    boolean stop(Duration timeout) throws InterruptedException {
        running = false;
        executor.shutdownNow();
        return executor.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }
}

package io.rdma.spring.completion;

import io.rdma.spring.resource.CompletionMode;
import io.rdma.spring.resource.CompletionPolling;
import io.rdma.verbs.api.CompletionBatch;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.ResourceClosedException;
import io.rdma.verbs.api.WorkCompletion;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Takes the completions of one CQ on a dedicated platform thread named {@code rdma-cq-<name>}
 * and hands them to the {@link CompletionRouter}. The mode decides how it waits:
 * {@code polling} spins on {@code ibv_poll_cq}; {@code event} sleeps on the CQ's completion
 * channel, re-arming before each poll ({@link CompletionQueue#awaitCompletions}, verbs manual §5.4);
 * {@code adaptive} spins while completions keep coming and sleeps once the poll window passes
 * without one. Between polls that found the CQ empty it spins or backs off
 * ({@link io.rdma.spring.resource.CompletionIdle}). Counts are written by this thread only and
 * read on scrape.
 */
public final class CompletionPoller implements Runnable {

    private static final Log logger = LogFactory.getLog(CompletionPoller.class);
    /** How long a sleeping poller waits before checking whether it should stop. */
    private static final Duration WAKE_INTERVAL = Duration.ofMillis(50);

    private final String name;
    private final CompletionQueue cq;
    private final CompletionMode mode;
    private final long pollWindowNanos;
    private final CompletionRouter router;
    private final CompletionBatch batch;
    private final PollerIdle idle;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile long completions;
    /**
     * Failed completions by {@code ibv_wc_status} number. Written by this thread only (a plain
     * read and a release write, no read-modify-write) and read by scrapes; failures are rare, so
     * the successes, which are the hot path, are counted in {@link #completions} alone.
     */
    private final AtomicLongArray errorsByStatus = new AtomicLongArray(CompletionStatus.values().length);
    private volatile long unrouted;
    /** Incremented after every poll that found the CQ empty: shutdown waits for one after its flush. */
    private volatile long emptyPolls;

    CompletionPoller(String name, CompletionQueue cq, CompletionPolling polling, CompletionRouter router) {
        this.name = name;
        this.cq = cq;
        this.mode = polling.mode();
        this.pollWindowNanos = polling.pollWindow().toNanos();
        this.router = router;
        this.batch = new CompletionBatch(polling.batchSize());
        this.idle = new PollerIdle(polling.idle(), polling.backoff());
        this.thread = Thread.ofPlatform().name("rdma-cq-" + name).daemon(true).unstarted(this);
    }

    void start() {
        thread.start();
    }

    /** Asks the thread to finish and waits for it. */
    void stop() throws InterruptedException {
        running = false;
        thread.join();
    }

    public String name() {
        return name;
    }

    public CompletionQueue completionQueue() {
        return cq;
    }

    public CompletionMode mode() {
        return mode;
    }

    /** Successful completions taken so far. */
    public long completions() {
        return completions;
    }

    /** Completions with an error status taken so far (flushes included): the sum of the counts by status. */
    public long errors() {
        long errors = 0;
        for (int status = 0; status < errorsByStatus.length(); status++) {
            errors += errorsByStatus.get(status);
        }
        return errors;
    }

    /** Completions with {@code status} taken so far ({@link #completions()} for {@code SUCCESS}). */
    public long completions(CompletionStatus status) {
        return status == CompletionStatus.SUCCESS ? completions : errorsByStatus.get(status.value());
    }

    /**
     * Completions taken so far by status ({@code SUCCESS} and each error status seen, such as
     * {@code WR_FLUSH_ERR}); statuses never seen are left out.
     */
    public Map<CompletionStatus, Long> completionsByStatus() {
        Map<CompletionStatus, Long> byStatus = new EnumMap<>(CompletionStatus.class);
        long succeeded = completions;
        if (succeeded > 0) {
            byStatus.put(CompletionStatus.SUCCESS, succeeded);
        }
        for (CompletionStatus status : CompletionStatus.values()) {
            long count = errorsByStatus.get(status.value());
            if (count > 0) {
                byStatus.put(status, count);
            }
        }
        return byStatus;
    }

    /** Completions no handler was registered for. */
    public long unrouted() {
        return unrouted;
    }

    long emptyPolls() {
        return emptyPolls;
    }

    Thread thread() {
        return thread;
    }

    @Override
    public void run() {
        long lastCompletion = System.nanoTime();
        try {
            while (running) {
                boolean polling = mode == CompletionMode.POLLING
                        || mode == CompletionMode.ADAPTIVE && System.nanoTime() - lastCompletion < pollWindowNanos;
                int count = polling ? cq.poll(batch) : cq.awaitCompletions(batch, WAKE_INTERVAL);
                if (count > 0) {
                    deliver(count);
                    lastCompletion = System.nanoTime();
                    idle.reset();
                } else {
                    emptyPolls++;
                    if (polling) {
                        idle.idle();
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ResourceClosedException e) {
            logger.warn("Completion queue '" + name + "' was closed while its poller ran; the poller stops", e);
        }
    }

    private void deliver(int count) {
        long ok = 0;
        for (int i = 0; i < count; i++) {
            WorkCompletion completion = batch.get(i);
            if (completion.isSuccess()) {
                ok++;
            } else {
                int status = completion.status().value();
                errorsByStatus.setRelease(status, errorsByStatus.getPlain(status) + 1);
            }
            try {
                if (!router.deliver(completion)) {
                    unrouted++;
                }
            } catch (RuntimeException e) {
                logger.error("Completion handler failed on " + completion + " of completion queue '" + name + "'", e);
            }
        }
        completions += ok;
    }
}

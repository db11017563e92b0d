package io.rdma.spring.completion;

import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.VerbsException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs one {@link CompletionPoller} per declared CQ while the application runs, and stops the
 * declared queue pairs' traffic before any resource is destroyed: lifecycle beans are stopped before the
 * context destroys its singletons. Stopping first lets outstanding send WRs complete (up to
 * {@code rdma.shutdown.drain-timeout}), then moves every QP to ERR so whatever is still posted
 * is flushed ({@code IBV_WC_WR_FLUSH_ERR}), waits until the pollers have taken a completion for
 * every send and receive each QP still had posted ({@link QueuePair#outstandingSends()},
 * {@link QueuePair#outstandingReceives()}) and delivered them to their handlers, and only then
 * ends the poller threads.
 */
public final class CompletionPollers implements SmartLifecycle {

    /**
     * Started before and stopped after the phases of the web server and of user lifecycle beans
     * (which may still post while they stop), so no post is left without a poller.
     */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 8192;

    private static final Log logger = LogFactory.getLog(CompletionPollers.class);
    private static final Duration FLUSH_TIMEOUT = Duration.ofSeconds(1);

    private final RdmaResources resources;
    private final CompletionRouter router;
    private final Duration drainTimeout;
    private final List<CompletionPoller> pollers;
    private volatile boolean running;

    public CompletionPollers(RdmaResources resources, CompletionRouter router) {
        this.resources = resources;
        this.router = router;
        this.drainTimeout = resources.drainTimeout();
        this.pollers = createPollers(resources, router);
    }

    private static List<CompletionPoller> createPollers(RdmaResources resources, CompletionRouter router) {
        List<CompletionPoller> created = new ArrayList<>();
        for (RdmaResources.Named<CompletionQueue> cq : resources.resources(CompletionQueue.class)) {
            created.add(new CompletionPoller(cq.name(), cq.resource(), resources.completionPolling(cq.name()),
                    router));
        }
        return List.copyOf(created);
    }

    public CompletionRouter router() {
        return router;
    }

    public List<CompletionPoller> pollers() {
        return pollers;
    }

    public Optional<CompletionPoller> poller(String cqName) {
        return pollers.stream().filter(poller -> poller.name().equals(cqName)).findFirst();
    }

    @Override
    public void start() {
        pollers.forEach(CompletionPoller::start);
        running = true;
    }

    @Override
    public void stop() {
        List<QueuePair> qps = resources.resources(QueuePair.class).stream().map(RdmaResources.Named::resource).toList();
        awaitDrained(qps);
        if (flush(qps)) {
            awaitFlushesPolled(qps);
        }
        awaitDelivered();
        for (CompletionPoller poller : pollers) {
            try {
                poller.stop();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        running = false;
    }

    private void awaitDrained(List<QueuePair> qps) {
        long deadline = System.nanoTime() + drainTimeout.toNanos();
        while (qps.stream().anyMatch(qp -> !qp.isClosed() && qp.outstandingSends() > 0)) {
            if (System.nanoTime() > deadline) {
                logger.warn("RDMA send work requests still outstanding after " + drainTimeout + "; flushing them");
                return;
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /**
     * QP to ERR: everything still posted completes with IBV_WC_WR_FLUSH_ERR (verbs manual §6.2).
     * True when a QP was moved.
     */
    private static boolean flush(List<QueuePair> qps) {
        boolean moved = false;
        for (QueuePair qp : qps) {
            try {
                if (!qp.isClosed() && qp.state() != QueuePairState.RESET && qp.state() != QueuePairState.ERR) {
                    qp.toError();
                    moved = true;
                }
            } catch (VerbsException e) {
                logger.warn("Could not move " + qp + " to the error state to flush it", e);
            }
        }
        return moved;
    }

    /**
     * A device writes the flush completions after {@code ibv_modify_qp} returns (rxe from its
     * responder and completer tasks), so an empty CQ does not mean they are all there: waits until
     * every posted send and receive of the flushed QPs has been polled, up to the drain timeout,
     * and at least {@link #FLUSH_TIMEOUT}, as a drain timeout of zero gives up on sends completing,
     * not on their flushes.
     */
    private void awaitFlushesPolled(List<QueuePair> qps) {
        Duration limit = drainTimeout.compareTo(FLUSH_TIMEOUT) > 0 ? drainTimeout : FLUSH_TIMEOUT;
        long deadline = System.nanoTime() + limit.toNanos();
        while (qps.stream().anyMatch(CompletionPollers::awaitsFlushes)) {
            if (System.nanoTime() > deadline || pollers.stream().noneMatch(CompletionPoller::isPolling)) {
                logger.warn("RDMA work requests still not flushed after " + limit
                        + ": " + qps.stream().filter(CompletionPollers::awaitsFlushes).map(qp -> qp
                        + " (" + qp.outstandingSends() + " sends, " + qp.outstandingReceives() + " receives)")
                        .toList());
                return;
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    private static boolean awaitsFlushes(QueuePair qp) {
        return !qp.isClosed() && (qp.outstandingSends() > 0 || qp.outstandingReceives() > 0);
    }

    /**
     * Waits (up to a second) until each running poller has found its CQ empty since this call,
     * so every completion already in a CQ (those of a flush, say) has reached its handler.
     */
    public void awaitDelivered() {
        long[] before = pollers.stream().mapToLong(CompletionPoller::emptyPolls).toArray();
        long deadline = System.nanoTime() + FLUSH_TIMEOUT.toNanos();
        for (int i = 0; i < pollers.size(); i++) {
            CompletionPoller poller = pollers.get(i);
            while (poller.isPolling() && poller.emptyPolls() <= before[i] + 1
                    && System.nanoTime() < deadline) {
                Thread.onSpinWait();
                Thread.yield();
            }
        }
    }

    /**
     * Not stopped when the context pauses (Spring's test context cache pauses a context no test
     * uses now): stopping is the fabric's teardown (every queue pair flushed to ERR, the pollers
     * ended), so a paused context keeps its fabric and only its listener containers stop.
     */
    @Override
    public boolean isPauseable() {
        return false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}

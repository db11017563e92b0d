package io.rdma.spring.completion;

import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.WorkCompletion;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * Routes each completion a poller takes to the handler registered for its QP and queue: send
 * completions to the QP's send handler (the RDMA template), receive completions to its
 * receive handler (a receive listener), and completions with an error also to the QP's failure
 * handler (the connection that reconnects it): a flush among them, as a QP moved to ERR by no
 * failure its owner heard of must be noticed too (a failure handler ignores the flushes of a
 * teardown it began itself). Routes are a copy-on-write array scanned per
 * completion: a CQ serves a handful of QPs, and the scan allocates nothing.
 */
public final class CompletionRouter {

    private record Route(int qpNumber, @Nullable CompletionHandler sends, @Nullable CompletionHandler receives,
                         @Nullable CompletionHandler failures) {
    }

    private volatile Route[] routes = new Route[0];

    /** Sends completions of {@code qp}'s send queue to {@code handler}, replacing an earlier one. */
    public synchronized void routeSends(QueuePair qp, CompletionHandler handler) {
        Route existing = find(qp.qpNumber());
        put(new Route(qp.qpNumber(), handler, existing == null ? null : existing.receives(),
                existing == null ? null : existing.failures()));
    }

    /** Sends completions of {@code qp}'s receive queue to {@code handler}, replacing an earlier one. */
    public synchronized void routeReceives(QueuePair qp, CompletionHandler handler) {
        Route existing = find(qp.qpNumber());
        put(new Route(qp.qpNumber(), existing == null ? null : existing.sends(), handler,
                existing == null ? null : existing.failures()));
    }

    /**
     * Also sends {@code qp}'s completions that failed to {@code handler}: the QP is in ERR, broken
     * (retries exceeded, a remote error) or moved there, and flushes what is posted.
     */
    public synchronized void routeFailures(QueuePair qp, CompletionHandler handler) {
        Route existing = find(qp.qpNumber());
        put(new Route(qp.qpNumber(), existing == null ? null : existing.sends(),
                existing == null ? null : existing.receives(), handler));
    }

    /** Forgets {@code qp} before it is destroyed: its QP number may be given to a new QP. */
    public synchronized void unroute(QueuePair qp) {
        routes = Arrays.stream(routes).filter(existing -> existing.qpNumber() != qp.qpNumber()).toArray(Route[]::new);
    }

    /** Delivers {@code completion}; false when no handler takes it. */
    boolean deliver(WorkCompletion completion) {
        for (Route route : routes) {
            if (route.qpNumber() == completion.qpNumber()) {
                CompletionStatus status = completion.status();
                if (route.failures() != null && status != CompletionStatus.SUCCESS) {
                    route.failures().onCompletion(completion);
                }
                CompletionHandler handler = completion.opcode().isSendQueue() ? route.sends() : route.receives();
                if (handler == null) {
                    return false;
                }
                handler.onCompletion(completion);
                return true;
            }
        }
        return false;
    }

    private @Nullable Route find(int qpNumber) {
        for (Route route : routes) {
            if (route.qpNumber() == qpNumber) {
                return route;
            }
        }
        return null;
    }

    private void put(Route route) {
        Route[] next = Arrays.stream(routes).filter(existing -> existing.qpNumber() != route.qpNumber())
                .toArray(Route[]::new);
        next = Arrays.copyOf(next, next.length + 1);
        next[next.length - 1] = route;
        routes = next;
    }
}

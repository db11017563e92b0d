package io.rdma.spring.connection;

import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.completion.CompletionPollers;
import io.rdma.spring.completion.CompletionRouter;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.AsyncEvent;
import io.rdma.verbs.api.AsyncEventListener;
import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.ResourceClosedException;
import io.rdma.verbs.api.VerbsException;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * What becomes of the queue pairs connections run on, between their connect and their close:
 * their failures (the devices' async events, as the listener of each device's events, and
 * completions with an error status) go to a watcher; their flushed work is delivered before they
 * are reset or closed; and one made from a prototype for a peer or an instance is retired with
 * its channel.
 */
final class ConnectionQueuePairs implements AsyncEventListener {

    private static final Set<AsyncEventType> QP_FAILURES = EnumSet.of(AsyncEventType.QP_FATAL,
            AsyncEventType.QP_REQ_ERR, AsyncEventType.QP_ACCESS_ERR);

    private final RdmaResources resources;
    private final CompletionRouter router;
    private final CompletionPollers pollers;
    private final RdmaChannels channels;
    private final Map<QueuePair, Consumer<String>> watchers = new ConcurrentHashMap<>();

    ConnectionQueuePairs(RdmaResources resources, CompletionRouter router, CompletionPollers pollers,
                         RdmaChannels channels) {
        this.resources = resources;
        this.router = router;
        this.pollers = pollers;
        this.channels = channels;
    }

    /**
     * Sends {@code qp}'s failures (async events and failed completions) to {@code watcher}, which
     * must not block. A flushed completion is one while the queue pair is in ERR still (it may have
     * been moved there with no failed work request to tell of it); one delivered after the queue
     * pair was reset, and maybe connected again, is the old connection's and is left out.
     */
    void watch(QueuePair qp, Consumer<String> watcher) {
        watchers.put(qp, watcher);
        router.routeFailures(qp, completion -> {
            // no longer watched: renewed or retired, and maybe being destroyed, on a connection thread
            if (watchers.get(qp) == watcher
                    && (completion.status() != CompletionStatus.WR_FLUSH_ERR || inErr(qp))) {
                watcher.accept("completion " + completion.status());
            }
        });
    }

    private static boolean inErr(QueuePair qp) {
        try {
            return qp.state() == QueuePairState.ERR;
        } catch (ResourceClosedException | VerbsException e) {
            // closed by its owner meanwhile, or being destroyed (rxe refuses the query with EBUSY):
            // nothing left to notice
            return false;
        }
    }

    void unwatch(QueuePair qp) {
        watchers.remove(qp);
    }

    /** Waits until the completions polled so far, a flush's among them, were delivered. */
    void awaitDelivered() {
        pollers.awaitDelivered();
    }

    /**
     * Moves {@code qp} to ERR, unless it is there or in RESET already, and waits for what was
     * polled to be delivered: from then on the device writes into none of its receives, so their
     * buffers may go back to the pool (a connection that failed half-way may have left the queue
     * pair in RTR or RTS, where the peer can send into them).
     */
    void flush(QueuePair qp) {
        QueuePairState state = qp.state();
        if (state != QueuePairState.ERR && state != QueuePairState.RESET) {
            qp.toError();
        }
        awaitDelivered();
    }

    /**
     * Channel {@code name} of a peer or an instance, on prototype queue pair {@code qp}, is gone
     * because of {@code cause}: the queue pair is no longer watched, the channel's followers are
     * told, its completions no longer routed, and the queue pair closed.
     */
    void retire(String name, QueuePair qp, String cause) {
        unwatch(qp);
        channels.close(name, cause);
        destroy(qp);
    }

    /**
     * How a connection on channel {@code name}, of an instance, gets a queue pair that was never
     * connected for each reconnection: a fresh one of {@code prototype} ({@link #renew}).
     */
    UnaryOperator<QueuePair> renewalFrom(String prototype, String name) {
        return used -> renew(name, used, resources.createQueuePair(prototype));
    }

    /**
     * How a connection on declared queue pair {@code name} gets one that was never connected for
     * each reconnection: the declared queue pair made anew ({@link #renew}); or, where none can be
     * made (a queue pair the application made itself, or one that flows steer packets to), the
     * used one reset (ERR → RESET), which iWARP cannot do.
     */
    UnaryOperator<QueuePair> renewalOfDeclared(String name) {
        if (resources.isRenewable(name)) {
            return used -> renew(name, used, resources.renew(name));
        }
        return used -> {
            used.reset();
            return used;
        };
    }

    /**
     * Channel {@code name} goes on {@code fresh}, made for its next connection: {@code used},
     * flushed and its flush delivered, is closed as {@link #retire} closes one, and its watcher
     * watches {@code fresh}. A connection is made on a queue pair that was never connected, as
     * librdmacm makes one per connection: iWARP cannot reset a failed queue pair, and a listener's
     * connection manager may still hold the old connection of a queue pair number (rejecting a
     * request from it as stale).
     */
    private QueuePair renew(String name, QueuePair used, QueuePair fresh) {
        Consumer<String> watcher = watchers.remove(used);
        channels.renew(name, fresh);
        destroy(used);
        if (watcher != null) {
            watch(fresh, watcher);
        }
        return fresh;
    }

    /**
     * At shutdown, once {@code qp}'s connection is closed: a queue pair made anew in place of a
     * declared one is closed once its flush is delivered; a declared bean stays for Spring to destroy.
     */
    void closeIfRenewed(QueuePair qp) {
        if (resources.isRenewed(qp)) {
            awaitDelivered();
            unwatch(qp);
            destroy(qp);
        }
    }

    /** Its completions are no longer routed (its number may go to a new queue pair), and it is closed. */
    private void destroy(QueuePair qp) {
        router.unroute(qp);
        qp.close();
    }

    @Override
    public void onEvent(AsyncEvent event) {
        if (QP_FAILURES.contains(event.type()) && event.resource() instanceof QueuePair qp) {
            Consumer<String> watcher = watchers.get(qp);
            if (watcher != null) {
                watcher.accept("IBV_EVENT_" + event.type());
            }
        }
    }

    /** At shutdown, once every connection is closed. */
    void clear() {
        watchers.clear();
    }
}

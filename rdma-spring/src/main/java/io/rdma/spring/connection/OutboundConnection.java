package io.rdma.spring.connection;

import io.rdma.spring.channel.RdmaChannel;
import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.resource.ConnectionPlan.OutboundPlan;
import io.rdma.verbs.api.Connection;
import io.rdma.verbs.api.ConnectionManager;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.VerbsException;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One outbound connection: connects its queue pair to the listener at host:port through the
 * connection manager, with the configured timeout, retries and backoff, and when the queue pair
 * fails or the listener disconnects connects it again: the connection is closed (QP to ERR,
 * outstanding work flushed and delivered), and the next attempt is made on a queue pair that was
 * never connected, made in place of the used one from its prototype or declaration (the
 * channel's successor under the same name), or, where none can be made (a queue pair the
 * application made itself), the used one reset (ERR → RESET). A declared connection connects at startup; the connection to an instance of a discovered
 * service connects in the background and is {@link #retire retired} when the instance leaves.
 * Its queue pair's channel, named as the plan's queue pair, goes up with each connection and down
 * with each teardown.
 *
 * <p>At most one thread works on the connection at a time (the {@code working} flag): the one
 * connecting, recovering or retiring it. A failure reported while one does is kept for it, and
 * acted upon as it lets go: the attempt that made the connection UP still works on it while it
 * publishes UP, and a failure then (under Soft-RoCE's emulation, the flush of a queue pair moved
 * to ERR at once) was lost, the connection left UP on a queue pair in ERR.
 */
final class OutboundConnection {

    private static final Log logger = LogFactory.getLog(OutboundConnection.class);
    private final OutboundPlan plan;
    private volatile QueuePair qp;
    /** The used queue pair → one never connected: a fresh one in its place, or it reset where none can be made. */
    private final UnaryOperator<QueuePair> renewal;
    private final ConnectionManager manager;
    private final RdmaChannels channels;
    private final ConnectionThreads threads;
    private final ConnectionQueuePairs queuePairs;
    private final ConnectionStateEvents events;
    private final AtomicBoolean working = new AtomicBoolean();
    private final ClientIdentity identity = ClientIdentity.random();
    private volatile ConnectionState state = ConnectionState.CONNECTING;
    private volatile @Nullable Connection connection;
    private volatile int attempts;
    private volatile @Nullable String lastFailure;
    private volatile @Nullable Runnable retired;
    /** A failure reported while the connection was UP and not yet acted upon ({@link #reconnectIfFailed}). */
    private final AtomicReference<@Nullable ReportedFailure> reportedFailure = new AtomicReference<>();
    /** Why the connection is torn down next: the failure that made it reconnect, or the instance leaving. */
    private volatile String teardownCause = "the application is stopping";

    OutboundConnection(OutboundPlan plan, QueuePair qp, UnaryOperator<QueuePair> renewal,
                       ConnectionManager manager, RdmaChannels channels, ConnectionThreads threads,
                       ConnectionQueuePairs queuePairs, ConnectionStateEvents events) {
        this.plan = plan;
        this.qp = qp;
        this.renewal = renewal;
        this.manager = manager;
        this.channels = channels;
        this.threads = threads;
        this.queuePairs = queuePairs;
        this.events = events;
    }

    /** Connects with the configured retries; the last failure fails the start. */
    void connectAtStartup() throws InterruptedException {
        working.set(true); // nothing else works on it before the start
        try {
            Exception last = null;
            for (int attempt = 1; attempt <= plan.retries() + 1; attempt++) {
                try {
                    attempt(attempt);
                    return;
                } catch (VerbsException | UnknownHostException e) {
                    last = e;
                    if (attempt <= plan.retries()) {
                        Thread.sleep(plan.backoff(attempt));
                    }
                }
            }
            moveTo(ConnectionState.DOWN);
            // every attempt failed, and there was at least one (retries is not negative)
            throw new RdmaConnectionException(plan.name(), plan.property() + ".host", target(), plan.retries() + 1,
                    Objects.requireNonNull(last));
        } finally {
            doneWorking();
        }
    }

    /**
     * The queue pair failed, or the listener disconnected ({@code reason}): reconnects on a
     * connection thread, once per failure. Never blocks: it may run on the provider's event thread.
     */
    void failed(String reason) {
        Connection current = connection;
        if (current != null && isUp()) {
            reportedFailure.set(new ReportedFailure(reason, current));
            reconnectIfFailed();
        }
    }

    /**
     * Acts upon the failure reported, unless another thread works on the connection: that one
     * comes here as it lets go ({@link #doneWorking}). A failure reported is written before the
     * flag is tried, and the flag let go before the failure is read, so that one of the two
     * threads sees the other's write. A failure of a connection that is no longer the one UP (one
     * failure reported by two threads, the second after the first made it reconnect) is old news.
     */
    private void reconnectIfFailed() {
        if (reportedFailure.get() == null || !working.compareAndSet(false, true)) {
            return;
        }
        ReportedFailure failure = reportedFailure.getAndSet(null);
        if (failure != null && failure.of() == connection && isUp()) {
            logger.warn("RDMA connection '" + plan.name() + "' (queue pair '" + plan.queuePair() + "') failed: "
                    + failure.reason() + "; reconnecting " + target());
            teardownCause = failure.reason();
            moveTo(ConnectionState.CONNECTING);
            threads.execute(() -> keepConnecting(true));
        } else {
            // old news; let go on a connection thread, where a retirement that came meanwhile is
            // finished: not on the reporter's, a poller's, whose CQ the retirement's flush waits for
            threads.execute(this::doneWorking);
        }
    }

    /** A failure of connection {@code of}. */
    private record ReportedFailure(String reason, Connection of) {
    }

    private boolean isUp() {
        return state == ConnectionState.UP && threads.isRunning() && retired == null;
    }

    /** The first connection to a discovered instance: attempted on a connection thread, never failing the start. */
    void connectInBackground() {
        if (working.compareAndSet(false, true)) {
            threads.execute(() -> keepConnecting(false));
        }
    }

    /**
     * The instance left its service: attempts stop, the connection closes (its observers told),
     * and then {@code release} runs once (it closes the queue pair), on this thread or, when an
     * attempt is under way, on the attempting one as soon as that attempt ends.
     */
    void retire(Runnable release) {
        teardownCause = "the instance left the service";
        retired = release;
        if (working.compareAndSet(false, true)) {
            finishRetirement(release);
        }
    }

    private void finishRetirement(Runnable release) {
        try {
            tearDown();
            moveTo(ConnectionState.DOWN);
        } finally {
            release.run();
        }
    }

    /**
     * Attempts go on while the application runs and the connection is not retired: after the
     * configured retries the connection is reported DOWN and tried again at the longest backoff.
     * An attempt that found no port of the device ACTIVE (ENETDOWN, nothing sent) is not one of
     * them: the connection is DOWN, and the next attempt goes out as soon as a port is ACTIVE
     * again, the round starting anew. Spending the round on a link that is down left a connection
     * waiting out the longest backoff after the link came back.
     */
    private void keepConnecting(boolean afterFailure) {
        try {
            if (afterFailure) {
                tearDown();
            }
            int attempt = 1;
            while (threads.isRunning() && retired == null) {
                try {
                    attempt(attempt);
                    return;
                } catch (VerbsException e) {
                    if (e.errno() == Errno.ENETDOWN) {
                        awaitActivePort();
                        attempt = 1;
                        continue;
                    }
                    backOff(attempt++);
                } catch (UnknownHostException e) {
                    backOff(attempt++);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            lastFailure = e.getMessage();
            moveTo(ConnectionState.DOWN);
            logger.error("RDMA connection '" + plan.name() + "' could not be recovered", e);
        } finally {
            doneWorking();
        }
    }

    private void backOff(int failedAttempt) throws InterruptedException {
        if (failedAttempt > plan.retries()) {
            moveTo(ConnectionState.DOWN);
        }
        Thread.sleep(plan.backoff(failedAttempt));
    }

    /** DOWN until a port is ACTIVE, the application stops or the connection is retired (looked at each second). */
    private void awaitActivePort() throws InterruptedException {
        moveTo(ConnectionState.DOWN);
        logger.info("RDMA connection '" + plan.name() + "': waiting for a port of its device to be ACTIVE again, "
                + "then connecting at once");
        while (threads.isRunning() && retired == null && !manager.awaitActivePort(Duration.ofSeconds(1))) {
            // each second: a retirement or a stop ends the wait
        }
    }

    /**
     * Lets go of the connection, retiring it when {@link #retire} came meanwhile (it left the work
     * to this thread), or reconnecting it when it failed meanwhile.
     */
    private void doneWorking() {
        Runnable release = retired;
        if (release != null) {
            finishRetirement(release);
            return;
        }
        working.set(false);
        release = retired;
        if (release != null && working.compareAndSet(false, true)) {
            finishRetirement(release); // retired between the check above and letting go
            return;
        }
        reconnectIfFailed();
    }

    private void attempt(int attempt) throws InterruptedException, UnknownHostException {
        attempts++;
        int configured = plan.retries() + 1;
        // Past the configured tries the connection is DOWN (logged, in health) and tried again at the
        // longest backoff for as long as it takes: each of those tries is DEBUG, not two lines a try.
        boolean configuredTry = attempt <= configured;
        if (configuredTry || logger.isDebugEnabled()) {
            String message = "RDMA connection '" + plan.name() + "': connecting queue pair '" + plan.queuePair() + "' "
                    + target() + (configuredTry ? " (attempt " + attempt + " of " + configured + ")"
                    : " (attempt " + attempt + ", again every " + plan.backoff(attempt).toMillis() + " ms while DOWN)");
            if (configuredTry) {
                logger.info(message);
            } else {
                logger.debug(message);
            }
        }
        Connection established;
        InetSocketAddress remote;
        try {
            if (qp.state() != QueuePairState.RESET) {
                qp = renewal.apply(qp); // a fresh one is made before the used one goes: failing, it leaves all as it was
            }
            remote = new InetSocketAddress(InetAddress.getByName(plan.host()), plan.port());
            // the channel's receives are posted with the QP in INIT, before the listener can send
            established = manager.connect(remote, qp, identity.privateData(), plan.timeout(), plan.reliability(),
                    () -> channels.connecting(plan.queuePair()));
        } catch (VerbsException | UnknownHostException e) {
            RdmaChannel channel = channels.get(plan.queuePair());
            if (channel != null && channel.isConnecting()) {
                // the receives posted for the handshake give their buffers back once the device is
                // done with them; the next attempt renews the QP
                queuePairs.flush(qp);
                channels.down(plan.queuePair(), "connecting failed: " + e.getMessage());
            }
            lastFailure = e.getMessage();
            if (configuredTry) {
                logger.warn("RDMA connection '" + plan.name() + "': attempt " + attempt + " failed: " + e.getMessage());
            } else {
                logger.debug("RDMA connection '" + plan.name() + "': attempt " + attempt + " failed: " + e.getMessage());
            }
            throw e;
        }
        connection = established;
        lastFailure = null;
        ConnectionState previous = enter(ConnectionState.UP); // a failure from now on is acted upon (failed), once this thread lets go
        // on the provider's event thread; a disconnect of a connection already replaced is old news
        established.onPeerDisconnect(gone -> {
            if (gone == connection) {
                failed("the listener disconnected");
            }
        });
        logger.info("RDMA connection '" + plan.name() + "' is up: queue pair '" + plan.queuePair() + "' connected "
                + target());
        channels.up(plan.queuePair(), remote);
        // told once the channel is usable: a listener of the event may send on it at once
        publish(previous, ConnectionState.UP);
    }

    /** Publishes the change, once per change: a round of failed attempts moves to DOWN at each attempt. */
    private void moveTo(ConnectionState next) {
        publish(enter(next), next);
    }

    /** The state before this one. */
    private synchronized ConnectionState enter(ConnectionState next) {
        ConnectionState previous = state;
        state = next;
        return previous;
    }

    private void publish(ConnectionState previous, ConnectionState next) {
        if (previous != next) {
            events.changed(plan.name(), plan.queuePair(), plan.host() + ":" + plan.port(), previous, next);
        }
    }

    /** Closes the connection (QP to ERR: what is posted is flushed), lets the flush be delivered, takes the channel down. */
    private void tearDown() {
        Connection current = connection;
        connection = null;
        if (current != null) {
            current.close();
        }
        queuePairs.flush(qp);
        channels.down(plan.queuePair(), teardownCause);
    }

    /**
     * At shutdown: the connection goes; the queue pair too when it was made anew in place of a
     * declared one, while a declared bean stays for Spring to destroy.
     */
    void close() {
        Connection current = connection;
        connection = null;
        if (current != null) {
            current.close();
        }
        queuePairs.closeIfRenewed(qp);
    }

    /** The queue pair it connects now: after a reconnection of a prototype's queue pair, not the first. */
    QueuePair queuePair() {
        return qp;
    }

    private String target() {
        return "to " + plan.host() + ":" + plan.port();
    }

    RdmaConnections.OutboundStatus status() {
        return new RdmaConnections.OutboundStatus(plan.name(), plan.property(), plan.queuePair(), plan.host(),
                plan.port(), state, attempts, lastFailure,
                state == ConnectionState.UP ? ConnectionReliability.of(qp) : null);
    }
}

package io.rdma.spring.connection;

import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.resource.ConnectionPlan.ListenerPlan;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.Connection;
import io.rdma.verbs.api.ConnectionListener;
import io.rdma.verbs.api.ConnectionManager;
import io.rdma.verbs.api.ConnectionRequest;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.VerbsException;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One declared listener: listens, and accepts peers on its own thread for as long as the
 * application runs, each on a queue pair of its own created from the listener's prototype (at
 * most {@code max-connections} at once), or one at a time on its declared queue pair. A request
 * that finds every place taken waits for one as long as the listener's accept-timeout, and is
 * rejected then. A peer whose queue pair fails, that disconnects
 * ({@code RDMA_CM_EVENT_DISCONNECTED}), or whose client connects again (the same
 * {@link ClientIdentity}: the disconnect was lost) is let go: its connection is closed, the
 * flush delivered, and its queue pair closed (prototype), or, declared, made anew from its
 * declaration for the next peer (reset, where none can be made).
 * Each peer is a channel: a prototype queue pair's channel ({@code <listener>#<n>}) is opened when
 * the peer is admitted and closed when it goes; the declared queue pair's goes up and down.
 */
final class AcceptingListener {

    private static final Log logger = LogFactory.getLog(AcceptingListener.class);
    private static final byte[] NO_PRIVATE_DATA = new byte[0];
    /**
     * How long one accept waits for a request before the loop checks whether the application
     * still runs; a request it got has the listener's accept-timeout to complete.
     */
    private static final Duration ACCEPT_WAIT = Duration.ofMillis(200);

    /**
     * An accepted peer: its channel's name, the queue pair it runs on, its address, its connection
     * and its client's identity (empty for a client that sent none).
     */
    private record Peer(String name, QueuePair queuePair, InetSocketAddress remote, Connection connection,
                        Optional<ClientIdentity> client) {
    }

    private final ListenerPlan plan;
    private final ConnectionManager manager;
    private final RdmaResources resources;
    private final RdmaChannels channels;
    private final ConnectionThreads threads;
    private final ConnectionQueuePairs queuePairs;
    private final ConnectionStateEvents events;
    private final Semaphore slots;
    private final AtomicInteger acceptedCount = new AtomicInteger();
    private final List<Peer> peers = new CopyOnWriteArrayList<>();
    private volatile @Nullable ConnectionListener listener;
    private volatile @Nullable String lastFailure;

    AcceptingListener(ListenerPlan plan, ConnectionManager manager, RdmaResources resources, RdmaChannels channels,
                      ConnectionThreads threads, ConnectionQueuePairs queuePairs, ConnectionStateEvents events) {
        this.plan = plan;
        this.manager = manager;
        this.resources = resources;
        this.channels = channels;
        this.threads = threads;
        this.queuePairs = queuePairs;
        this.events = events;
        this.slots = new Semaphore(plan.peersAtOnce());
    }

    /** rdma_bind_addr + rdma_listen; a failure names the property to change. */
    void listen() {
        InetSocketAddress address = new InetSocketAddress(plan.address(), plan.port());
        ConnectionListener listening;
        try {
            listening = manager.listen(address, plan.backlog());
        } catch (VerbsException e) {
            String property = switch (e.errno()) {
                case EADDRINUSE -> plan.property() + ".port";
                case EADDRNOTAVAIL -> plan.property() + ".address";
                default -> plan.property();
            };
            throw new RdmaConnectionException(plan.name(), property, "listening on " + address.getAddress()
                    .getHostAddress() + ":" + plan.port(), 1, e);
        }
        listener = listening;
        logger.info("RDMA listener '" + plan.name() + "' listens on " + listening.localAddress() + " (backlog "
                + plan.backlog() + ", " + (plan.queuePair() != null ? "one peer at a time on queue pair '"
                + plan.queuePair() + "'" : "up to " + plan.maxConnections() + " peers on queue pairs of prototype '"
                + plan.queuePairPrototype() + "'") + ")");
    }

    /** Where it listens, with the port chosen for port 0; empty before it listens and after it closed. */
    Optional<InetSocketAddress> boundAddress() {
        ConnectionListener current = listener;
        return current == null || current.isClosed() ? Optional.empty() : Optional.of(current.localAddress());
    }

    /**
     * The accept loop; ends when the application stops (interrupt) or the listener is closed. A
     * failure with one peer (no queue pair could be created for it, or its accept or admission
     * failed) is logged and costs that peer only: the loop pauses, so that a device out of
     * resources is not asked again at once, and goes on accepting; the client tries again.
     */
    void acceptPeers() {
        // started once listen() succeeded (RdmaConnections.start), which set it for good
        ConnectionListener listening = Objects.requireNonNull(listener);
        try {
            while (threads.isRunning() && !listening.isClosed()) {
                try {
                    Optional<ConnectionRequest> next = listening.nextRequest(ACCEPT_WAIT);
                    if (next.isPresent()) {
                        try (ConnectionRequest request = next.get()) {
                            decide(request);
                        }
                    }
                } catch (RuntimeException e) {
                    if (!threads.isRunning() || listening.isClosed()) {
                        return;
                    }
                    lastFailure = e.getMessage();
                    logger.warn("RDMA listener '" + plan.name() + "': " + lastFailure + "; accepting goes on in "
                            + ACCEPT_WAIT.toMillis() + "ms");
                    Thread.sleep(ACCEPT_WAIT);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Admits the peer that {@code request} asks for, once its client's earlier connection, if
     * this listener still holds one, is let go, and a place is free within the accept-timeout;
     * rejects it when none frees.
     */
    private void decide(ConnectionRequest request) throws InterruptedException {
        Optional<ClientIdentity> client = ClientIdentity.of(request.privateData());
        if (client.isPresent()) {
            for (Peer earlier : peers) {
                if (earlier.client().equals(client)) {
                    letGo(earlier, "its client connected again, from " + request.remoteAddress()
                            + ": the disconnect was lost", false);
                }
            }
        }
        if (!slots.tryAcquire(plan.acceptTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
            request.reject();
            throw new IllegalStateException("rejected a request from " + request.remoteAddress() + ": "
                    + plan.peersAtOnce() + " peers stayed connected for the accept-timeout ("
                    + plan.acceptTimeout().toMillis() + " ms); raise " + plan.property() + ".max-connections"
                    + " if more clients should be served at once");
        }
        QueuePair qp = null;
        String name = null;
        boolean placed = false;
        try {
            qp = freshQueuePair();
            name = channelFor(qp);
            String channel = name;
            // the channel's receives are posted with the QP in INIT, before the client can send
            Connection connection = request.accept(qp, NO_PRIVATE_DATA, plan.acceptTimeout(), plan.reliability(),
                    () -> channels.connecting(channel));
            admit(name, qp, connection, client);
            placed = true;
        } catch (RuntimeException e) {
            throw new IllegalStateException((qp == null ? "no queue pair for the next peer from '"
                    + plan.queuePairSource() + "'" : "accepting a peer failed") + ": " + e.getMessage(), e);
        } finally {
            if (!placed) {
                try {
                    discard(name, qp);
                } finally {
                    slots.release();
                }
            }
        }
    }

    /**
     * The channel the next peer is accepted on: the declared queue pair's, or, on a prototype's
     * queue pair, a new one, DOWN, open before the handshake so that its receives are posted then.
     */
    private String channelFor(QueuePair qp) {
        String declared = plan.queuePair();
        if (declared != null) {
            return declared;
        }
        String name = plan.peerChannel(acceptedCount.incrementAndGet());
        channels.open(name, plan.name(), qp, queuePairPrototype());
        return name;
    }

    /**
     * A queue pair that was never connected: a new one of the prototype; or the declared one, made
     * anew from its declaration once a peer used it (or reset, where none can be made).
     */
    private QueuePair freshQueuePair() {
        String name = plan.queuePair();
        if (name == null) {
            return resources.createQueuePair(queuePairPrototype());
        }
        QueuePair declared = declaredQueuePair(name);
        return declared.state() == QueuePairState.RESET ? declared : queuePairs.renewalOfDeclared(name).apply(declared);
    }

    /** The declared queue pair's name finds this now: the bean, or one made anew for a later peer. */
    private QueuePair declaredQueuePair(String name) {
        return (QueuePair) resources.resource(name).orElseThrow().resource();
    }

    /**
     * A queue pair no peer was admitted on: a prototype's is retired with its channel, if it had
     * one; the declared one stays (made anew or reset before the next peer), and its channel is
     * told it is down, so the receives posted before the handshake give their buffers back.
     */
    private void discard(@Nullable String channel, @Nullable QueuePair unused) {
        if (unused == null) {
            return;
        }
        String cause = "accepting the peer failed";
        if (!unused.isClosed()) {
            queuePairs.flush(unused); // the handshake's receives were posted: the device must be done with them
        }
        if (plan.queuePair() != null) {
            channels.down(plan.queuePair(), cause);
        } else if (channel != null) {
            queuePairs.retire(channel, unused, cause);
        } else if (!unused.isClosed()) {
            unused.close();
        }
    }

    /** The prototype of a listener that declares no queue pair: the plan sets exactly one of the two. */
    private String queuePairPrototype() {
        return Objects.requireNonNull(plan.queuePairPrototype());
    }

    /**
     * Makes a peer accepted on channel {@code name} usable; if that fails, its connection is closed
     * (and the caller discards the queue pair).
     */
    private void admit(String name, QueuePair qp, Connection connection, Optional<ClientIdentity> client) {
        Peer peer = new Peer(name, qp, connection.remoteAddress(), connection, client);
        try {
            peers.add(peer);
            queuePairs.watch(qp, reason -> threads.execute(() -> letGo(peer, reason, false)));
            // on the provider's event thread: the letting go runs on a connection thread
            connection.onPeerDisconnect(gone -> threads.execute(() -> letGo(peer, "the peer disconnected", true)));
        } catch (RuntimeException e) {
            peers.remove(peer);
            queuePairs.unwatch(qp);
            connection.close();
            throw e;
        }
        logger.info("RDMA listener '" + plan.name() + "' accepted " + connection.remoteAddress() + " on queue pair '"
                + name + "' (0x" + Integer.toHexString(qp.qpNumber()) + ")");
        channels.up(name, connection.remoteAddress());
        events.changed(plan.name(), name, hostAndPort(connection.remoteAddress()), ConnectionState.DOWN,
                ConnectionState.UP);
    }

    /**
     * Once per peer, whichever comes first: its queue pair failed, or it disconnected. A peer that
     * disconnects is a client going away, which a server sees every day (INFO); a failed queue
     * pair is what an operator must hear of (WARN).
     */
    private void letGo(Peer peer, String reason, boolean disconnected) {
        if (!peers.remove(peer)) {
            return;
        }
        String gone = "RDMA listener '" + plan.name() + "': peer " + peer.remote() + " on queue pair '"
                + peer.name() + "' is gone (" + reason + "); its connection is closed";
        if (disconnected) {
            logger.info(gone);
        } else {
            logger.warn(gone);
        }
        try {
            release(peer, reason);
        } finally {
            slots.release();
            events.changed(plan.name(), peer.name(), hostAndPort(peer.remote()),
                    ConnectionState.UP, ConnectionState.DOWN);
        }
    }

    /** {@code 10.77.0.2:49152}, as an outbound connection names its listener; no resolver is asked. */
    private static String hostAndPort(InetSocketAddress address) {
        return address.getHostString() + ":" + address.getPort();
    }

    private void release(Peer peer, String reason) {
        QueuePair qp = peer.queuePair();
        peer.connection().close();
        queuePairs.awaitDelivered();
        if (plan.queuePair() == null) {
            queuePairs.retire(peer.name(), qp, reason);
        } else {
            // made anew (or reset) when the next peer comes: iWARP cannot reset a failed queue pair
            queuePairs.unwatch(qp);
            channels.down(peer.name(), reason);
        }
    }

    /** At shutdown, after the accept loop ended, before any connection is closed. */
    void stopListening() {
        if (listener != null) {
            listener.close();
        }
    }

    /**
     * At shutdown, once listening stopped: closes every peer's connection, then their prototype QPs,
     * and the declared queue pair when it was made anew.
     */
    void close() {
        List<Peer> remaining = List.copyOf(peers);
        peers.clear();
        remaining.forEach(peer -> peer.connection().close());
        if (!remaining.isEmpty()) {
            queuePairs.awaitDelivered();
        }
        for (Peer peer : remaining) {
            if (plan.queuePair() == null) {
                queuePairs.retire(peer.name(), peer.queuePair(), "the application is stopping");
            } else {
                queuePairs.unwatch(peer.queuePair());
            }
        }
        String declared = plan.queuePair();
        if (declared != null) {
            queuePairs.closeIfRenewed(declaredQueuePair(declared)); // the bean stays for Spring to destroy
        }
    }

    RdmaConnections.ListenerStatus status() {
        return new RdmaConnections.ListenerStatus(plan.name(), plan.property(),
                boundAddress().map(InetSocketAddress::toString).orElse(null), plan.backlog(),
                plan.queuePairSource(), peers.stream().map(peer -> new RdmaConnections.PeerStatus(peer.name(),
                        String.valueOf(peer.remote()), peer.queuePair().qpNumber(),
                        peer.queuePair().isClosed() ? "CLOSED" : peer.queuePair().state().name(),
                        ConnectionReliability.of(peer.queuePair())))
                        .toList(), lastFailure);
    }
}

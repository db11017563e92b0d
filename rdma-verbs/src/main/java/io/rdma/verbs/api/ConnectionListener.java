package io.rdma.verbs.api;

import io.rdma.verbs.spi.ConnectionManagerHandle;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A listening {@code rdma_cm_id}: accepts connection requests, one QP each. Closing it stops
 * listening; accepted connections stay up (they depend on their QPs, not on the listener).
 * Closing its context closes it first.
 *
 * <p>Thread-safe.
 */
public final class ConnectionListener extends VerbsResource {

    private final ConnectionManager manager;
    private final ConnectionManagerHandle.ListenerHandle handle;

    ConnectionListener(ConnectionManager manager, ConnectionManagerHandle.ListenerHandle handle) {
        super(ResourceKind.CONNECTION_LISTENER, manager.context(), handle, List.of(manager.context()));
        this.manager = manager;
        this.handle = handle;
    }

    /** The bound address, with the chosen port when listening on port 0. */
    public InetSocketAddress localAddress() {
        return handle.localAddress();
    }

    /**
     * Waits up to {@code wait} for a connection request; empty when none came. The request is
     * the caller's to accept or reject (closing it rejects it): a server that looks at who asks
     * before it spends a QP, or that refuses when it is full, decides here.
     *
     * @throws ResourceClosedException when the listener or its context is closed
     * @throws InterruptedException when the thread is interrupted while it waits
     */
    public Optional<ConnectionRequest> nextRequest(Duration wait) throws InterruptedException {
        ensureOpen();
        var request = handle.nextRequest(wait.toNanos());
        return request == null ? Optional.empty() : Optional.of(new ConnectionRequest(this, request));
    }

    /**
     * Waits up to {@code requestWait} for a connection request, walks {@code qp} (RESET, same
     * context) to RTS for it, accepts with {@code privateData} and waits up to
     * {@code handshakeTimeout} for the connection to be established; empty when no request came.
     * The two are apart so that a loop may poll for requests briefly (to notice it should stop)
     * while a request it got still has the time a slow fabric needs to complete the handshake.
     * On iWARP the accepting side sends nothing before the client's first message has arrived
     * (see {@link ConnectionRequest#accept(QueuePair, byte[], Duration, ReliabilitySettings)}).
     *
     * @throws VerbsException {@code rdma_accept} with {@code ETIMEDOUT} when the client did not
     *                        establish the connection within {@code handshakeTimeout}, ECONNRESET
     *                        when the client gave up first; EINVAL when {@code qp} belongs to another
     *                        context, is not RC or UC, or is not in RESET
     * @throws ResourceClosedException when the listener, its context or {@code qp} is closed
     * @throws InterruptedException when the thread is interrupted while it waits
     */
    public Optional<Connection> accept(QueuePair qp, byte[] privateData, Duration requestWait,
                                       Duration handshakeTimeout) throws InterruptedException {
        return accept(qp, privateData, requestWait, handshakeTimeout, ReliabilitySettings.deviceDefaults());
    }

    /**
     * {@link #accept(QueuePair, byte[], Duration, Duration)}, with the RC reliability attributes
     * {@code reliability} sets in place of those the connection manager gives {@code qp}.
     *
     * @throws VerbsException as {@link #accept(QueuePair, byte[], Duration, Duration)}; EINVAL when
     *         {@code reliability} sets an attribute and {@code qp} is not RC
     * @throws ResourceClosedException when the listener, its context or {@code qp} is closed
     * @throws InterruptedException when the thread is interrupted while it waits
     */
    public Optional<Connection> accept(QueuePair qp, byte[] privateData, Duration requestWait,
                                       Duration handshakeTimeout, ReliabilitySettings reliability)
            throws InterruptedException {
        // a QP that cannot be accepted on fails before any request is taken from the backlog
        manager.connectable(qp, reliability, "rdma_accept");
        Optional<ConnectionRequest> next = nextRequest(requestWait);
        if (next.isEmpty()) {
            return Optional.empty();
        }
        try (ConnectionRequest request = next.get()) {
            return Optional.of(request.accept(qp, privateData, handshakeTimeout, reliability));
        }
    }

    /**
     * {@link #accept(QueuePair, byte[], Duration, Duration)} with {@code timeout} for the request and the handshake each.
     *
     * @throws VerbsException as {@link #accept(QueuePair, byte[], Duration, Duration)}
     * @throws ResourceClosedException when the listener, its context or {@code qp} is closed
     * @throws InterruptedException when the thread is interrupted while it waits
     */
    public Optional<Connection> accept(QueuePair qp, byte[] privateData, Duration timeout)
            throws InterruptedException {
        return accept(qp, privateData, timeout, timeout);
    }

    ConnectionManager manager() {
        return manager;
    }

    @Override
    void destroyHandle() {
        handle.close();
    }

    @Override
    String describe() {
        return "connection listener on " + handle.localAddress();
    }
}

package io.rdma.verbs.api;

import io.rdma.verbs.spi.ConnectionManagerHandle;
import io.rdma.verbs.spi.QpHandle;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * A connection request a {@link ConnectionListener} received ({@code rdma_get_request}): who
 * asks and what it sent, to be accepted on a QP or rejected. Until then it holds a connection
 * manager id of its own; closing it rejects it if neither was done, so that a try-with-resources
 * block leaves nothing behind whichever way it ends.
 *
 * <p>Not thread-safe: one thread decides a request.
 */
public final class ConnectionRequest implements AutoCloseable {

    private final ConnectionListener listener;
    private final ConnectionManagerHandle.RequestHandle handle;
    private boolean decided;

    ConnectionRequest(ConnectionListener listener, ConnectionManagerHandle.RequestHandle handle) {
        this.listener = listener;
        this.handle = handle;
    }

    /** Where the request came from. */
    public InetSocketAddress remoteAddress() {
        return handle.remoteAddress();
    }

    /** What the client sent with its request. */
    public byte[] privateData() {
        return handle.privateData();
    }

    /**
     * Walks {@code qp} (RESET, the listener's context) to RTS for this request, accepts it with
     * {@code privateData} and waits up to {@code handshakeTimeout} for the connection to be
     * established, with the RC reliability attributes {@code reliability} sets in place of those
     * the connection manager gives {@code qp}.
     *
     * <p>On iWARP ({@link TransportType#IWARP}) the accepting side is the MPA responder, which
     * sends nothing before the client's first message has arrived (RFC 5044 §7.1.2): a protocol
     * in which the server speaks first has the client send a message first all the same. siw,
     * which does not negotiate RFC 6581's ready-to-receive message, holds to it by failing the
     * client's connect ({@code rdma_connect} EINVAL, {@code RDMA_CM_EVENT_CONNECT_ERROR}) when
     * a message follows the reply before the client has taken it.
     *
     * @throws VerbsException {@code rdma_accept} with ETIMEDOUT when the client did not establish
     *         the connection in time, ECONNRESET when it gave up first; EINVAL when {@code qp}
     *         belongs to another context, is not RC or UC, or is not in RESET, or when
     *         {@code reliability} sets an attribute and {@code qp} is not RC; the request is
     *         rejected then, as it is on any failure
     * @throws IllegalStateException when the request was accepted or rejected already
     * @throws ResourceClosedException when the listener, its context or {@code qp} is closed
     * @throws InterruptedException when the thread is interrupted while it waits
     */
    public Connection accept(QueuePair qp, byte[] privateData, Duration handshakeTimeout,
                             ReliabilitySettings reliability) throws InterruptedException {
        return accept(qp, privateData, handshakeTimeout, reliability, () -> { });
    }

    /**
     * {@link #accept(QueuePair, byte[], Duration, ReliabilitySettings)}, running
     * {@code beforeHandshake} once {@code qp} is in INIT, before the reply goes out: where to post
     * the receives for the client's first messages, which it may send as soon as it sees the
     * connection established, before this call returns (see
     * {@link ConnectionManager#connect(InetSocketAddress, QueuePair, byte[], Duration, ReliabilitySettings, Runnable)}).
     * A failure {@code beforeHandshake} throws fails the accept with it, and rejects the request.
     *
     * @throws VerbsException as {@link #accept(QueuePair, byte[], Duration, ReliabilitySettings)}
     * @throws IllegalStateException when the request was accepted or rejected already
     * @throws ResourceClosedException when the listener, its context or {@code qp} is closed
     * @throws InterruptedException when the thread is interrupted while it waits
     */
    public Connection accept(QueuePair qp, byte[] privateData, Duration handshakeTimeout,
                             ReliabilitySettings reliability, Runnable beforeHandshake) throws InterruptedException {
        decide();
        ConnectionManager manager = listener.manager();
        QpHandle qpHandle;
        try {
            listener.ensureOpen();
            qpHandle = manager.connectable(qp, reliability, "rdma_accept");
        } catch (RuntimeException e) {
            refuse();
            throw e;
        }
        return manager.register(qp, handle.accept(qpHandle, privateData.clone(), handshakeTimeout.toNanos(),
                reliability, beforeHandshake));
    }

    /**
     * {@link #accept(QueuePair, byte[], Duration, ReliabilitySettings)} with the device's
     * reliability attributes.
     *
     * @throws VerbsException as {@link #accept(QueuePair, byte[], Duration, ReliabilitySettings)}
     * @throws IllegalStateException when the request was accepted or rejected already
     * @throws ResourceClosedException when the listener, its context or {@code qp} is closed
     * @throws InterruptedException when the thread is interrupted while it waits
     */
    public Connection accept(QueuePair qp, byte[] privateData, Duration handshakeTimeout) throws InterruptedException {
        return accept(qp, privateData, handshakeTimeout, ReliabilitySettings.deviceDefaults());
    }

    /**
     * Refuses the request: the client's connect fails with ECONNREFUSED. While no port of the
     * device is ACTIVE the refusal is held until one is, as a disconnect is ({@link Connection}).
     *
     * @throws IllegalStateException when the request was accepted or rejected already
     */
    public void reject() {
        decide();
        refuse();
    }

    /** Rejects the request unless it was accepted or rejected. */
    @Override
    public void close() {
        if (!decided) {
            reject();
        }
    }

    private void refuse() {
        listener.manager().context().heldDisconnects().sendOrHold("rejection of the request from "
                + remoteAddress(), handle::reject);
    }

    private void decide() {
        if (decided) {
            throw new IllegalStateException("the request from " + remoteAddress() + " was decided already");
        }
        decided = true;
    }
}

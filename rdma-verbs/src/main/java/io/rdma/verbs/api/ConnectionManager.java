package io.rdma.verbs.api;

import io.rdma.verbs.spi.ConnectionManagerHandle;
import io.rdma.verbs.spi.QpHandle;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * Connection setup through the RDMA connection manager (librdmacm, verbs manual §11.1) for QPs of
 * one device context, instead of exchanging QPN, GID and PSN out of band (verbs manual §11.2). The QP
 * is created by the application, in RESET, on this context; connecting or accepting walks
 * it to RTS. Only providers with a connection manager offer it (the native one does).
 *
 * <p>It is not a resource and has nothing to close: its listeners and connections are, and
 * closing the context closes them; after that every method fails with
 * {@link ResourceClosedException}. Thread-safe: it holds no state of its own.
 *
 * <pre>{@code
 * ConnectionManager cm = ConnectionManager.of(context);
 * // server                                   // client
 * try (ConnectionListener listener =          try (Connection connection = cm.connect(
 *          cm.listen(new InetSocketAddress(            new InetSocketAddress("10.0.0.1", 7471), qp,
 *              "0.0.0.0", 7471), 8)) {                 hello, Duration.ofSeconds(5))) {
 *     Connection connection = listener                 ...
 *         .accept(qp, hello, Duration.ofSeconds(30)).orElseThrow();
 * }                                           }
 * }</pre>
 */
public final class ConnectionManager {

    private final DeviceContext context;
    private final ConnectionManagerHandle handle;

    private ConnectionManager(DeviceContext context, ConnectionManagerHandle handle) {
        this.context = context;
        this.handle = handle;
    }

    /**
     * The connection manager of {@code context}.
     *
     * @throws VerbsException EOPNOTSUPP when the context's provider has no connection manager
     * @throws ResourceClosedException when the context is closed
     */
    public static ConnectionManager of(DeviceContext context) {
        context.ensureOpen();
        if (!(context.handle() instanceof ConnectionManagerHandle handle)) {
            throw new VerbsException("rdma_create_id", Errno.EOPNOTSUPP, "the provider of " + context.deviceName()
                    + " has no connection manager", "exchange QueuePairEndpoints out of band and call "
                    + "QueuePair.connect");
        }
        return new ConnectionManager(context, handle);
    }

    /**
     * {@code rdma_bind_addr} + {@code rdma_listen}; port 0 lets the system choose.
     *
     * @throws VerbsException {@code rdma_bind_addr} with EADDRINUSE when the address is taken or
     *         EADDRNOTAVAIL when no RDMA device has it; {@code rdma_listen} with EINVAL for a
     *         {@code backlog} below 1; the errno librdmacm fails with
     * @throws ResourceClosedException when the context is closed
     */
    public ConnectionListener listen(InetSocketAddress address, int backlog) {
        return context.create(() -> new ConnectionListener(this, handle.listen(address, backlog)));
    }

    /**
     * Resolves {@code remote}'s address and route, connects {@code qp} to the listener there and
     * returns once the connection is established, {@code qp} in RTS. Each step fails with a
     * {@link VerbsException} naming it: {@code rdma_resolve_addr} (no route to an RDMA device),
     * {@code rdma_resolve_route}, {@code rdma_connect} (ECONNREFUSED when nobody listens,
     * ETIMEDOUT when {@code timeout} passes). A loopback {@code remote} means this host: rdma_cm
     * cannot route it to a device, so the native provider connects to this host's RDMA address on
     * the context's device instead (the IPv4 address of a port's RoCE v2 GID, its IPoIB
     * interface's, or on iWARP its netdev's), and fails with {@code rdma_resolve_route} ENODEV when no port has one; the
     * simulated fabric routes loopback itself.
     *
     * @throws VerbsException EINVAL when {@code qp} belongs to another context, is not RC or UC, or
     *         is not in RESET (on iWARP: RESET or INIT, the one state it has before its connection); {@code rdma_resolve_addr} with EHOSTUNREACH (or the errno librdmacm
     *         gives) when no RDMA device routes there; {@code rdma_connect} with ECONNREFUSED when
     *         nobody listens or the peer rejects, ETIMEDOUT when {@code timeout} passes, ENETDOWN at
     *         once when no port of the device is ACTIVE
     * @throws ResourceClosedException when the context or {@code qp} is closed, before or during the connect
     * @throws InterruptedException when the thread is interrupted while it waits
     */
    public Connection connect(InetSocketAddress remote, QueuePair qp, byte[] privateData, Duration timeout)
            throws InterruptedException {
        return connect(remote, qp, privateData, timeout, ReliabilitySettings.deviceDefaults());
    }

    /**
     * {@link #connect(InetSocketAddress, QueuePair, byte[], Duration)}, with the RC reliability
     * attributes {@code reliability} sets in place of those the connection manager gives {@code qp}
     * (the ACK timeout, retry counts and RNR timer that decide how soon a dead peer is noticed). An
     * iWARP QP ({@link TransportType#IWARP}) has none of them: TCP retransmits, and they change nothing.
     *
     * @throws VerbsException as {@link #connect(InetSocketAddress, QueuePair, byte[], Duration)}; EINVAL
     *         when {@code reliability} sets an attribute and {@code qp} is not RC
     * @throws ResourceClosedException when the context or {@code qp} is closed, before or during the connect
     * @throws InterruptedException when the thread is interrupted while it waits
     */
    public Connection connect(InetSocketAddress remote, QueuePair qp, byte[] privateData, Duration timeout,
                              ReliabilitySettings reliability) throws InterruptedException {
        return connect(remote, qp, privateData, timeout, reliability, () -> { });
    }

    /**
     * {@link #connect(InetSocketAddress, QueuePair, byte[], Duration, ReliabilitySettings)}, running
     * {@code beforeHandshake} once {@code qp} is in INIT, before the connection request goes out:
     * where to post the receives for the peer's first messages. The peer may send as soon as the
     * connection is established, which it can see before this call returns; an iWARP QP has no RNR
     * retry to hold a message back until a receive is posted (the connection fails), an InfiniBand
     * or RoCE QP only as often as the sender's RNR retry count allows. A failure
     * {@code beforeHandshake} throws fails the connect with it.
     *
     * @throws VerbsException as {@link #connect(InetSocketAddress, QueuePair, byte[], Duration, ReliabilitySettings)}
     * @throws ResourceClosedException when the context or {@code qp} is closed, before or during the connect
     * @throws InterruptedException when the thread is interrupted while it waits
     */
    public Connection connect(InetSocketAddress remote, QueuePair qp, byte[] privateData, Duration timeout,
                              ReliabilitySettings reliability, Runnable beforeHandshake) throws InterruptedException {
        QpHandle qpHandle = connectable(qp, reliability, "rdma_connect");
        requireActivePort(remote);
        return register(qp, handle.connect(remote, qpHandle, privateData.clone(), timeout.toNanos(), reliability,
                beforeHandshake));
    }

    /**
     * Sends a connection request only while a port of the device is ACTIVE, for the reason a
     * disconnect is held then ({@link HeldDisconnects}): it could not get through, and on rxe it
     * would leave the device's connection manager deaf.
     */
    private void requireActivePort(InetSocketAddress remote) {
        if (!context.hasActivePort()) {
            throw new VerbsException("rdma_connect", Errno.ENETDOWN, "connecting to " + remote + ": no port of "
                    + context.deviceName() + " is ACTIVE", "connect once a port is ACTIVE again (IBV_EVENT_PORT_ACTIVE)");
        }
    }

    /**
     * Waits until a port of the device is ACTIVE, for at most {@code timeout}: until then a
     * {@link #connect} fails with ENETDOWN at once, nothing sent. Woken by
     * {@code IBV_EVENT_PORT_ACTIVE}, so a connection whose link went down can try again the moment
     * it is back rather than after a backoff. Returns at once when a port is ACTIVE, or when the
     * ports cannot be queried (the next verb then says what became of the device).
     *
     * @return whether a port is ACTIVE (or could not be queried); false when {@code timeout} passed first
     * @throws InterruptedException when the thread is interrupted while it waits
     */
    public boolean awaitActivePort(Duration timeout) throws InterruptedException {
        return context.activePortWait().await(timeout);
    }

    DeviceContext context() {
        return context;
    }

    /**
     * Tracks an established connection under its QP. The connect or accept itself blocks, so it
     * runs outside the context's lifecycle lock; if the QP was closed meanwhile the connection
     * is torn down at once.
     */
    Connection register(QueuePair qp, ConnectionManagerHandle.ConnectionHandle established) {
        try {
            return context.create(() -> {
                qp.ensureOpen();
                return new Connection(qp, established);
            });
        } catch (RuntimeException e) {
            established.disconnect();
            throw e;
        }
    }

    /**
     * The QP's handle, once it is known to be an open RESET QP of this context, and an RC one where
     * {@code reliability} sets anything (UC has no ACKs, so none of the four applies).
     */
    QpHandle connectable(QueuePair qp, ReliabilitySettings reliability, String verb) {
        Objects.requireNonNull(qp, "qp");
        context.ensureOpen();
        qp.ensureOpen();
        if (qp.context() != context) {
            throw new VerbsException(verb, Errno.EINVAL, qp + " belongs to another device context",
                    "create the QP on the context the connection manager was made for");
        }
        if (!qp.type().isConnected()) {
            throw new VerbsException(verb, Errno.EINVAL, qp + " is " + qp.type() + "; rdma_cm connects RC and UC",
                    null);
        }
        if (qp.type() != QueuePairType.RC && !reliability.isDeviceDefault()) {
            throw new VerbsException(verb, Errno.EINVAL, qp + " is " + qp.type() + " and " + reliability
                    + " sets RC attributes", "leave the reliability settings unset for a UC queue pair");
        }
        QueuePairState state = qp.state();
        // an iWARP QP has one state before its connection (siw's IDLE), which it reports as INIT
        boolean unconnected = state == QueuePairState.RESET
                || state == QueuePairState.INIT && context.device().transportType() == TransportType.IWARP;
        if (!unconnected) {
            throw new VerbsException(verb, Errno.EINVAL, qp + " is in " + state + ", not RESET",
                    "give the connection manager a fresh QP");
        }
        return (QpHandle) qp.handle();
    }
}

package io.rdma.verbs.api;

import io.rdma.verbs.spi.ConnectionManagerHandle;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.Consumer;

/**
 * An established connection of one QP through the connection manager. It depends on its QP,
 * so closing the QP (or its context) closes the connection first. Closing it moves the QP to
 * ERR (what is outstanding is flushed), disconnects ({@code rdma_disconnect}) and releases
 * the connection manager's id; a failure of one of these steps is thrown after the others
 * ran, with the connection closed all the same. Nothing depends on a connection.
 *
 * <p>While no port of the device is ACTIVE the disconnect and the id's release are held until
 * one is again, or until the context closes: the peer hears of the disconnect once the link is
 * back rather than never, and on rxe a disconnect sent while the link is down leaves the device's
 * connection manager deaf (docs/reliability.md). The connection is closed at once all the same.
 *
 * <p>Thread-safe.
 */
public final class Connection extends VerbsResource {

    private final QueuePair queuePair;
    private final ConnectionManagerHandle.ConnectionHandle handle;

    Connection(QueuePair queuePair, ConnectionManagerHandle.ConnectionHandle handle) {
        super(ResourceKind.CONNECTION, queuePair.context(), handle, List.of(queuePair));
        this.queuePair = queuePair;
        this.handle = handle;
    }

    public QueuePair queuePair() {
        return queuePair;
    }

    /**
     * The private data the peer sent with its connection request or its accept.
     *
     * @throws ResourceClosedException when the connection is closed
     */
    public byte[] peerPrivateData() {
        ensureOpen();
        return handle.peerPrivateData();
    }

    public InetSocketAddress remoteAddress() {
        return handle.remoteAddress();
    }

    /**
     * Calls {@code listener} once when the peer disconnects ({@code RDMA_CM_EVENT_DISCONNECTED}),
     * on a thread of its own (it may close this connection, which waits for the provider's
     * event thread): the moment to close this connection and reconnect or let the peer go,
     * rather than wait for the next send to fail.
     *
     * @throws ResourceClosedException when the connection is closed
     */
    public void onPeerDisconnect(Consumer<Connection> listener) {
        ensureOpen();
        handle.onPeerDisconnect(() -> listener.accept(this));
    }

    /**
     * Moves the QP to ERR, then disconnects and releases the id (or holds both while no port is
     * ACTIVE). A failure of either step does not stop the other, and the connection is closed all
     * the same: the provider releases the id even when {@code rdma_disconnect} fails, so nothing is
     * left to use or to close again. The first failure is thrown afterwards
     * ({@link VerbsResource#close()}).
     */
    @Override
    void destroyHandle() {
        RuntimeException failure = null;
        try {
            // the connection manager does not own the QP, so it is this side that flushes it
            queuePair.toError();
        } catch (RuntimeException e) {
            failure = e;
        }
        try {
            context().heldDisconnects().sendOrHold("disconnect of the " + describe(), handle::disconnect);
        } catch (RuntimeException e) {
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
        markClosed();
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    String describe() {
        return "connection of " + queuePair + " to " + handle.remoteAddress();
    }
}

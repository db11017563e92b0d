package io.rdma.verbs.api;

import io.rdma.verbs.spi.ConnectionManagerHandle;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;

/** A listening {@code rdma_cm_id}: accepts connection requests, one QP each. */
public final class ConnectionListener implements AutoCloseable {

    private final ConnectionManager manager;
    private final ConnectionManagerHandle.ListenerHandle handle;
    private boolean closed;

    ConnectionListener(ConnectionManager manager, ConnectionManagerHandle.ListenerHandle handle) {
        this.manager = manager;
        this.handle = handle;
    }

    /** The bound address, with the chosen port when listening on port 0. */
    public InetSocketAddress localAddress() {
        return handle.localAddress();
    }

    /**
     * Waits up to {@code timeout} for a connection request, walks {@code qp} (RESET, same
     * context) to RTS for it and accepts with {@code privateData}; empty on timeout.
     */
    public synchronized Optional<Connection> accept(QueuePair qp, byte[] privateData, Duration timeout)
            throws InterruptedException {
        if (closed) {
            throw new ResourceClosedException("connection listener on " + handle.localAddress());
        }
        var accepted = handle.accept(manager.connectable(qp, "rdma_accept"), privateData.clone(), timeout.toNanos());
        return accepted == null ? Optional.empty() : Optional.of(new Connection(qp, accepted));
    }

    /** Stops listening ({@code rdma_destroy_id}); accepted connections stay up. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            handle.close();
        }
    }
}

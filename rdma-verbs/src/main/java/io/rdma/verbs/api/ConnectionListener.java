package io.rdma.verbs.api;

import io.rdma.verbs.spi.ConnectionManagerHandle;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A listening {@code rdma_cm_id}: accepts connection requests, one QP each. Closing it stops
 * listening; accepted connections stay up (they depend on their QPs, not on the listener).
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
     * Waits up to {@code timeout} for a connection request, walks {@code qp} (RESET, same
     * context) to RTS for it and accepts with {@code privateData}; empty on timeout.
     */
    public Optional<Connection> accept(QueuePair qp, byte[] privateData, Duration timeout)
            throws InterruptedException {
        ensureOpen();
        var accepted = handle.accept(manager.connectable(qp, "rdma_accept"), privateData.clone(), timeout.toNanos());
        return accepted == null ? Optional.empty() : Optional.of(manager.register(qp, accepted));
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

package io.rdma.verbs.api;

import io.rdma.verbs.spi.ConnectionManagerHandle;

import java.net.InetSocketAddress;

/**
 * An established rdma_cm connection of one QP. Close it before the QP: closing moves the QP to ERR (what
 * is outstanding is flushed), disconnects ({@code rdma_disconnect}) and releases the
 * connection manager's id.
 */
public final class Connection implements AutoCloseable {

    private final QueuePair queuePair;
    private final ConnectionManagerHandle.ConnectionHandle handle;
    private boolean closed;

    Connection(QueuePair queuePair, ConnectionManagerHandle.ConnectionHandle handle) {
        this.queuePair = queuePair;
        this.handle = handle;
    }

    public QueuePair queuePair() {
        return queuePair;
    }

    /** The private data the peer sent with its connection request or its accept. */
    public byte[] peerPrivateData() {
        return handle.peerPrivateData();
    }

    public InetSocketAddress remoteAddress() {
        return handle.remoteAddress();
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            try {
                // the connection manager does not own the QP, so it is this side that flushes it
                if (!queuePair.isClosed()) {
                    queuePair.toError();
                }
            } finally {
                handle.disconnect();
            }
        }
    }
}

package io.rdma.verbs.spi;

import io.rdma.verbs.api.ReliabilitySettings;

import java.net.InetSocketAddress;

import org.jspecify.annotations.Nullable;

/**
 * librdmacm's connection manager on an opened device, for providers that have one; the
 * provider's {@link ContextHandle} implements it. Connections carry QPs the application
 * created (in RESET) on that context: the manager moves them to RTS with the attributes the
 * connection manager computes ({@code rdma_init_qp_attr}), with each RC reliability attribute
 * that the {@link ReliabilitySettings} set in its place, and exchanges private data.
 * Every wait is bounded by a timeout; address, route and connection failures are
 * {@link io.rdma.verbs.api.VerbsException}s naming the step ({@code rdma_resolve_addr},
 * {@code rdma_resolve_route}, {@code rdma_connect}, ...) and its errno.
 */
public interface ConnectionManagerHandle {

    /** {@code rdma_bind_addr} and {@code rdma_listen} on {@code address} (port 0 picks one). */
    ListenerHandle listen(InetSocketAddress address, int backlog);

    /**
     * {@code rdma_resolve_addr}, {@code rdma_resolve_route} and {@code rdma_connect} to
     * {@code remote} for {@code qp}, which is in RTS when this returns. {@code beforeHandshake}
     * runs once {@code qp} is in INIT, before the connection request goes out; a failure it
     * throws fails the connect.
     */
    ConnectionHandle connect(InetSocketAddress remote, QpHandle qp, byte[] privateData, long timeoutNanos,
                             ReliabilitySettings reliability, Runnable beforeHandshake) throws InterruptedException;

    /** A listening {@code rdma_cm_id}. */
    interface ListenerHandle {

        /** The bound address, with the port the system chose for port 0. */
        InetSocketAddress localAddress();

        /**
         * Waits up to {@code waitNanos} for a connection request ({@code RDMA_CM_EVENT_CONNECT_REQUEST});
         * null when none came. The request holds an id of its own until it is accepted or rejected.
         */
        @Nullable RequestHandle nextRequest(long waitNanos) throws InterruptedException;

        /** {@code rdma_destroy_id} of the listener. */
        void close();
    }

    /** A connection request that a listener received, with the id it created for the connection. */
    interface RequestHandle {

        /** Where the request came from. */
        InetSocketAddress remoteAddress();

        /** What the client sent with its request. */
        byte[] privateData();

        /**
         * Moves {@code qp} to RTS for the request, {@code rdma_accept}s it with {@code privateData}
         * and waits up to {@code handshakeNanos} for {@code RDMA_CM_EVENT_ESTABLISHED}; on a
         * failure the request is rejected and its id released. {@code beforeHandshake} runs once
         * {@code qp} is in INIT, before the reply goes out; a failure it throws fails the accept.
         */
        ConnectionHandle accept(QpHandle qp, byte[] privateData, long handshakeNanos, ReliabilitySettings reliability,
                                Runnable beforeHandshake) throws InterruptedException;

        /** {@code rdma_reject} (the client's connect fails with ECONNREFUSED) and {@code rdma_destroy_id}. */
        void reject();
    }

    /** An established connection's {@code rdma_cm_id}. */
    interface ConnectionHandle {

        /** What the peer sent with its request or its accept. */
        byte[] peerPrivateData();

        InetSocketAddress remoteAddress();

        /**
         * Runs {@code action} once, on the provider's event thread, when the peer disconnects
         * ({@code RDMA_CM_EVENT_DISCONNECTED}); at once if it already has.
         */
        void onPeerDisconnect(Runnable action);

        /** {@code rdma_disconnect} and {@code rdma_destroy_id}; the QP is the caller's to move to ERR. */
        void disconnect();
    }
}

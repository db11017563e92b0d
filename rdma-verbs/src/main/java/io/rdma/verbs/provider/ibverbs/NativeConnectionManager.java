package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.DeviceAttributes;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.ReliabilitySettings;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.TransportType;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.provider.ibverbs.generated.ibv_qp_attr;
import io.rdma.verbs.provider.ibverbs.generated.rdma_conn_param;
import io.rdma.verbs.provider.ibverbs.generated.rdma_h;
import io.rdma.verbs.provider.support.LiveObjectCensus;
import io.rdma.verbs.provider.support.PeerDisconnectNotice;
import io.rdma.verbs.spi.ConnectionManagerHandle;
import io.rdma.verbs.spi.QpHandle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.concurrent.ThreadFactory;

import org.jspecify.annotations.Nullable;

/**
 * librdmacm on one opened device. The QP is the application's, not attached to the
 * {@code rdma_cm_id}: the id only resolves, exchanges the connection and private data, and
 * tells ({@code rdma_init_qp_attr}) the attributes each state transition needs, which are
 * applied with {@code ibv_modify_qp}; the active side then confirms with
 * {@code rdma_establish}, as librdmacm requires for QPs it does not own. On iWARP the id's
 * connection manager takes the QP (by the QPN the connect or accept names) to RTS itself, with the
 * TCP stream it set up: the active side only waits for ESTABLISHED, and the passive side's moves to
 * RTR and RTS change nothing (rdma_init_qp_attr names no state for RTS there), as with librdmacm's
 * own QPs.
 */
final class NativeConnectionManager implements ConnectionManagerHandle {

    private static final CheckedCall RESOLVE_ADDR = CheckedCall.bind("rdma_resolve_addr",
            rdma_h.rdma_resolve_addr$address(), rdma_h.rdma_resolve_addr$descriptor());
    private static final CheckedCall RESOLVE_ROUTE = CheckedCall.bind("rdma_resolve_route",
            rdma_h.rdma_resolve_route$address(), rdma_h.rdma_resolve_route$descriptor());
    private static final CheckedCall CONNECT = CheckedCall.bind("rdma_connect",
            rdma_h.rdma_connect$address(), rdma_h.rdma_connect$descriptor());
    private static final CheckedCall ESTABLISH = CheckedCall.bind("rdma_establish",
            rdma_h.rdma_establish$address(), rdma_h.rdma_establish$descriptor());
    private static final CheckedCall BIND_ADDR = CheckedCall.bind("rdma_bind_addr",
            rdma_h.rdma_bind_addr$address(), rdma_h.rdma_bind_addr$descriptor());
    private static final CheckedCall LISTEN = CheckedCall.bind("rdma_listen",
            rdma_h.rdma_listen$address(), rdma_h.rdma_listen$descriptor());
    private static final CheckedCall ACCEPT = CheckedCall.bind("rdma_accept",
            rdma_h.rdma_accept$address(), rdma_h.rdma_accept$descriptor());
    private static final CheckedCall REJECT = CheckedCall.bind("rdma_reject",
            rdma_h.rdma_reject$address(), rdma_h.rdma_reject$descriptor());
    private static final CheckedCall DISCONNECT = CheckedCall.bind("rdma_disconnect",
            rdma_h.rdma_disconnect$address(), rdma_h.rdma_disconnect$descriptor());
    private static final CheckedCall INIT_QP_ATTR = CheckedCall.bind("rdma_init_qp_attr",
            rdma_h.rdma_init_qp_attr$address(), rdma_h.rdma_init_qp_attr$descriptor());
    private static final CheckedCall MODIFY_QP = CheckedCall.bind("ibv_modify_qp",
            rdma_h.ibv_modify_qp$address(), rdma_h.ibv_modify_qp$descriptor());

    /** {@code private_data_len} is a uint8_t, and rdma_cm's own header takes some of the 255 bytes on IB. */
    private static final int MAX_PRIVATE_DATA = 56;
    /** RDMA reads and atomics in flight per connection, each way. */
    private static final int MAX_READ_DEPTH = 16;

    private final NativeContext context;
    private final LoopbackDestination loopback;

    NativeConnectionManager(NativeContext context) {
        this.context = context;
        this.loopback = new LoopbackDestination(context);
    }

    @Override
    public ListenerHandle listen(InetSocketAddress address, int backlog) {
        CmId listener = CmId.create();
        try (Arena arena = Arena.ofConfined()) {
            BIND_ADDR.status(String.valueOf(address), listener.segment(), SocketAddresses.toNative(address, arena));
            LISTEN.status(address + ", backlog " + backlog, listener.segment(), backlog);
            int port = Short.toUnsignedInt(Short.reverseBytes(rdma_h.rdma_get_src_port(listener.segment())));
            return new Listener(listener, new InetSocketAddress(address.getAddress(), port));
        } catch (RuntimeException e) {
            listener.destroy();
            throw e;
        }
    }

    @Override
    public ConnectionHandle connect(InetSocketAddress destination, QpHandle qp, byte[] privateData, long timeoutNanos,
                                    ReliabilitySettings reliability, Runnable beforeHandshake)
            throws InterruptedException {
        checkPrivateData(privateData, "rdma_connect");
        InetSocketAddress remote = loopback.routable(destination);
        long deadline = System.nanoTime() + timeoutNanos;
        CmId id = CmId.create();
        try (Arena arena = Arena.ofConfined()) {
            String detail = "connecting to " + remote;
            RESOLVE_ADDR.status(detail, id.segment(), MemorySegment.NULL, SocketAddresses.toNative(remote, arena),
                    remainingMillis(deadline));
            id.await(rdma_h.RDMA_CM_EVENT_ADDR_RESOLVED(), "rdma_resolve_addr", deadline, detail);
            requireThisDevice(id, "rdma_resolve_addr", detail);
            RESOLVE_ROUTE.status(detail, id.segment(), remainingMillis(deadline));
            id.await(rdma_h.RDMA_CM_EVENT_ROUTE_RESOLVED(), "rdma_resolve_route", deadline, detail);
            NativeQp nativeQp = (NativeQp) qp;
            moveTo(id, nativeQp, QueuePairState.INIT, reliability);
            beforeHandshake.run();
            CONNECT.status(detail, id.segment(), connectionParameters(nativeQp, privateData, reliability, arena));
            if (context.transportType() == TransportType.IWARP) {
                // iWARP's connection manager hands the TCP stream to the QP and moves it to RTS itself
                // before it reports the connection as ESTABLISHED (in place of CONNECT_RESPONSE): there is
                // nothing left to modify, nor to confirm (rdma_establish fails with EINVAL there)
                CmId.Event established = id.await(rdma_h.RDMA_CM_EVENT_ESTABLISHED(), "rdma_connect", deadline,
                        detail);
                return new Connection(id, remote, established.privateData(), context.census());
            }
            CmId.Event response = id.await(rdma_h.RDMA_CM_EVENT_CONNECT_RESPONSE(), "rdma_connect", deadline,
                    detail);
            moveTo(id, nativeQp, QueuePairState.RTR, reliability);
            moveTo(id, nativeQp, QueuePairState.RTS, reliability);
            ESTABLISH.status(detail, id.segment());
            return new Connection(id, remote, response.privateData(), context.census());
        } catch (RuntimeException | InterruptedException e) {
            id.destroy();
            throw e;
        }
    }

    private void requireThisDevice(CmId id, String verb, String detail) {
        String device = id.deviceName();
        if (!context.deviceName().equals(device)) {
            throw new VerbsException(verb, Errno.EINVAL, detail + " goes through RDMA device " + device
                    + ", but the QP is on " + context.deviceName(),
                    "create the QP on the device context of the device that reaches that address");
        }
    }

    /**
     * {@code rdma_init_qp_attr} for {@code state}, applied to the application's QP, with the
     * reliability attributes {@code reliability} sets in place of those it gives: the RNR timer at
     * RTR, the ACK timeout and both retry counts at RTS (only an RC QP gets them, and the mask
     * rdma_init_qp_attr returns for it already names them). Where the IB connection manager gives an
     * RNR timer and none is set, {@link ReliabilitySettings#DEFAULT_RNR_TIMER} replaces its 0 (655 ms
     * per RNR NAK); iWARP's gives none, having no RNR NAK.
     */
    private static void moveTo(CmId id, NativeQp qp, QueuePairState state, ReliabilitySettings reliability) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_qp_attr.allocate(arena);
            MemorySegment maskHolder = arena.allocate(ValueLayout.JAVA_INT);
            ibv_qp_attr.qp_state(attr, state.ordinal());
            INIT_QP_ATTR.status("attributes for " + state, id.segment(), attr, maskHolder);
            int mask = maskHolder.get(ValueLayout.JAVA_INT, 0);
            if (state == QueuePairState.RTR && reliability.rnrTimer() != null) {
                ibv_qp_attr.min_rnr_timer(attr, reliability.rnrTimer().byteValue());
                mask |= rdma_h.IBV_QP_MIN_RNR_TIMER();
            } else if (state == QueuePairState.RTR && (mask & rdma_h.IBV_QP_MIN_RNR_TIMER()) != 0) {
                ibv_qp_attr.min_rnr_timer(attr, (byte) ReliabilitySettings.DEFAULT_RNR_TIMER);
            }
            if (state == QueuePairState.RTS) {
                if (reliability.ackTimeout() != null) {
                    ibv_qp_attr.timeout(attr, reliability.ackTimeout().byteValue());
                    mask |= rdma_h.IBV_QP_TIMEOUT();
                }
                if (reliability.retryCount() != null) {
                    ibv_qp_attr.retry_cnt(attr, reliability.retryCount().byteValue());
                    mask |= rdma_h.IBV_QP_RETRY_CNT();
                }
                if (reliability.rnrRetry() != null) {
                    ibv_qp_attr.rnr_retry(attr, reliability.rnrRetry().byteValue());
                    mask |= rdma_h.IBV_QP_RNR_RETRY();
                }
            }
            MODIFY_QP.status("to " + state + " for rdma_cm, attr_mask 0x" + Integer.toHexString(mask), qp.segment(),
                    attr, mask);
        }
    }

    /**
     * The request's or reply's parameters. Its retry counts are what the peer's connection manager
     * gives the peer's QP (IB CM: the REQ's for the passive side, the REP's for the active one),
     * so they carry this side's settings too: a peer that sets none follows them.
     */
    private MemorySegment connectionParameters(NativeQp qp, byte[] privateData, ReliabilitySettings reliability,
                                               Arena arena) {
        DeviceAttributes device = context.queryDevice();
        int depth = Math.min(MAX_READ_DEPTH, Math.min(device.maxQpRdAtom(), device.maxQpInitRdAtom()));
        MemorySegment param = rdma_conn_param.allocate(arena);
        if (privateData.length > 0) {
            MemorySegment data = arena.allocate(privateData.length);
            MemorySegment.copy(privateData, 0, data, ValueLayout.JAVA_BYTE, 0, privateData.length);
            rdma_conn_param.private_data(param, data);
            rdma_conn_param.private_data_len(param, (byte) privateData.length);
        }
        rdma_conn_param.responder_resources(param, (byte) depth);
        rdma_conn_param.initiator_depth(param, (byte) depth);
        // The retry counts a connection offers where the application sets none: the most, 7 each
        // (rnr_retry 7 = infinite).
        Integer retryCount = reliability.retryCount();
        Integer rnrRetry = reliability.rnrRetry();
        rdma_conn_param.retry_count(param,
                (byte) (retryCount != null ? retryCount : ReliabilitySettings.MAX_RETRIES));
        rdma_conn_param.rnr_retry_count(param,
                (byte) (rnrRetry != null ? rnrRetry : ReliabilitySettings.INFINITE_RNR_RETRY));
        rdma_conn_param.qp_num(param, qp.qpNumber());
        return param;
    }

    private static void checkPrivateData(byte[] privateData, String verb) {
        if (privateData.length > MAX_PRIVATE_DATA) {
            throw new VerbsException(verb, Errno.EINVAL, privateData.length + " bytes of private data",
                    "rdma_cm carries at most " + MAX_PRIVATE_DATA + " bytes on every transport; exchange more "
                            + "over the connection");
        }
    }

    private static int remainingMillis(long deadline) {
        return (int) Math.clamp((deadline - System.nanoTime()) / 1_000_000, 1, Integer.MAX_VALUE);
    }

    private final class Listener implements ListenerHandle {

        private final CmId id;
        private final InetSocketAddress localAddress;

        Listener(CmId id, InetSocketAddress localAddress) {
            this.id = id;
            this.localAddress = localAddress;
            context.census().created(ResourceKind.CONNECTION_LISTENER);
        }

        @Override
        public InetSocketAddress localAddress() {
            return localAddress;
        }

        @Override
        public @Nullable RequestHandle nextRequest(long waitNanos) throws InterruptedException {
            long deadline = System.nanoTime() + waitNanos;
            CmId.Event request;
            do {
                request = id.next(deadline);
                if (request == null) {
                    return null;
                }
                if (request.type() == rdma_h.RDMA_CM_EVENT_DEVICE_REMOVAL()) {
                    throw NativeErrors.failure("rdma_listen", Errno.ENODEV.code(), "listening on " + localAddress);
                }
            } while (request.type() != rdma_h.RDMA_CM_EVENT_CONNECT_REQUEST());
            CmId child = CmId.adopt(request.id());
            try {
                return new Request(child, request.privateData(), localAddress);
            } catch (RuntimeException e) {
                rejectAndRelease(child);
                throw e;
            }
        }

        @Override
        public void close() {
            id.destroy();
            context.census().destroyed(ResourceKind.CONNECTION_LISTENER);
        }
    }

    /** A connection request's id, on a channel of its own from the moment it came. */
    private final class Request implements RequestHandle {

        private final CmId child;
        private final byte[] privateData;
        private final InetSocketAddress remote;
        private final String detail;

        Request(CmId child, byte[] privateData, InetSocketAddress localAddress) {
            this.child = child;
            this.privateData = privateData;
            this.remote = child.destinationAddress();
            this.detail = "request from " + remote + " on " + localAddress;
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return remote;
        }

        @Override
        public byte[] privateData() {
            return privateData.clone();
        }

        @Override
        public ConnectionHandle accept(QpHandle qp, byte[] acceptData, long handshakeNanos,
                                       ReliabilitySettings reliability, Runnable beforeHandshake)
                throws InterruptedException {
            long deadline = System.nanoTime() + handshakeNanos;
            try (Arena arena = Arena.ofConfined()) {
                checkPrivateData(acceptData, "rdma_accept");
                requireThisDevice(child, "rdma_accept", detail);
                NativeQp nativeQp = (NativeQp) qp;
                moveTo(child, nativeQp, QueuePairState.INIT, reliability);
                beforeHandshake.run();
                moveTo(child, nativeQp, QueuePairState.RTR, reliability);
                moveTo(child, nativeQp, QueuePairState.RTS, reliability);
                ACCEPT.status(detail, child.segment(), connectionParameters(nativeQp, acceptData, reliability, arena));
                child.await(rdma_h.RDMA_CM_EVENT_ESTABLISHED(), "rdma_accept", deadline, detail);
                return new Connection(child, remote, privateData, context.census());
            } catch (RuntimeException | InterruptedException e) {
                reject();
                throw e;
            }
        }

        @Override
        public void reject() {
            rejectAndRelease(child);
        }
    }

    /** {@code rdma_reject} of a request's id (its client's connect fails with ECONNREFUSED), then its release. */
    private static void rejectAndRelease(CmId request) {
        REJECT.errnoOf(request.segment(), MemorySegment.NULL, (byte) 0);
        request.destroy();
    }

    /**
     * An established id. Its channel also carries {@code RDMA_CM_EVENT_DISCONNECTED} when the
     * peer goes away; once someone asks to hear of it, a watcher thread waits for that event
     * (in short polls, so a local disconnect can stop it before the id is destroyed).
     */
    private static final class Connection implements ConnectionHandle {

        private static final long WATCH_SLICE_NANOS = 200_000_000;
        private static final ThreadFactory PEER_DISCONNECTED_THREADS =
                Thread.ofPlatform().daemon().name("rdma-peer-disconnected").factory();

        private final CmId id;
        private final InetSocketAddress remote;
        private final byte[] peerPrivateData;
        private final LiveObjectCensus census;
        /**
         * Actions run on threads of their own: one may well close this connection, which waits for the
         * watcher. Platform threads: a close blocks in librdmacm, pinning a virtual thread's carrier, and
         * a virtual thread may wait seconds for a carrier behind the application's own under load.
         */
        private final PeerDisconnectNotice peerDisconnect = new PeerDisconnectNotice(
                action -> PEER_DISCONNECTED_THREADS.newThread(action).start());
        private @Nullable Thread watcher;
        private volatile boolean closing;

        Connection(CmId id, InetSocketAddress remote, byte[] peerPrivateData, LiveObjectCensus census) {
            this.id = id;
            this.remote = remote;
            this.peerPrivateData = peerPrivateData;
            this.census = census;
            census.created(ResourceKind.CONNECTION);
        }

        @Override
        public byte[] peerPrivateData() {
            return peerPrivateData.clone();
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return remote;
        }

        @Override
        public synchronized void onPeerDisconnect(Runnable action) {
            peerDisconnect.onDisconnect(action);
            if (watcher == null) {
                watcher = Thread.ofPlatform().daemon().name("rdma-cm-watch-" + remote).start(this::watch);
            }
        }

        private void watch() {
            try {
                while (!closing) {
                    CmId.Event event = id.next(System.nanoTime() + WATCH_SLICE_NANOS);
                    if (event != null && event.type() == rdma_h.RDMA_CM_EVENT_DISCONNECTED()) {
                        peerDisconnect.disconnected();
                        return;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** A peer that disconnected first leaves nothing to disconnect (EINVAL); the id is released either way. */
        @Override
        public void disconnect() {
            closing = true;
            Thread running;
            synchronized (this) {
                running = watcher;
            }
            if (running != null && running != Thread.currentThread()) {
                try {
                    running.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            try {
                int errno = DISCONNECT.errnoOf(id.segment());
                if (errno != 0 && errno != Errno.EINVAL.code()) {
                    throw NativeErrors.failure("rdma_disconnect", errno, "connection to " + remote);
                }
            } finally {
                id.destroy();
                census.destroyed(ResourceKind.CONNECTION);
            }
        }
    }
}

package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.AddressVector;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.GlobalRoute;
import io.rdma.verbs.api.Mtu;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.QueuePairAttributes;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.ReliabilitySettings;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.provider.support.PeerDisconnectNotice;
import io.rdma.verbs.spi.ConnectionManagerHandle.ConnectionHandle;
import io.rdma.verbs.spi.ConnectionManagerHandle.ListenerHandle;
import io.rdma.verbs.spi.ConnectionManagerHandle.RequestHandle;
import io.rdma.verbs.spi.QpHandle;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

/**
 * The fabric's connection manager, in the JVM: what librdmacm does over the wire (address
 * resolution from the IPv4 in each port's RoCE GID, a connection request queued at a
 * listener up to its backlog, a reply, the established handshake) done with queues and
 * futures. Each side walks its own QP to RTS with the attributes the other side sent, as
 * {@code rdma_init_qp_attr} would give them. Addresses: a port's IPv4 is the one in its GID
 * at index 1 ({@code 10.<device>.<port>.<host>}), and a client reaches a listener on any host
 * of the fabric by it; loopback and the wildcard address mean the device of the caller. Port
 * numbers belong to a host, as on separate machines: two hosts may listen on the same one, and
 * each picks its own for port 0 and for its clients' ends.
 */
final class SimulatedConnectionManager {

    private static final int MAX_RD_ATOMIC = 16;
    /** How often a connection request whose exchange was lost is sent again before the connect times out. */
    private static final int EXCHANGE_TRIES = 4;
    /**
     * This fabric's rdma_init_qp_attr, where the application sets nothing: the verbs manual's example
     * values (§6.2.2, §6.2.3), ACK timeout 14 (≈ 67 ms), retry_cnt 7 and rnr_retry 7 (infinite), which
     * the native provider's connection parameters also ask for, and min_rnr_timer 12 (0.64 ms), which it
     * sets in place of the kernel's. A device's connection manager may give another ACK timeout (it
     * follows its packet lifetime); {@code QueuePair.query} tells what a QP got.
     */
    private static final ReliabilitySettings CONNECTION_MANAGER_DEFAULTS = new ReliabilitySettings(14,
            ReliabilitySettings.MAX_RETRIES, ReliabilitySettings.INFINITE_RNR_RETRY, ReliabilitySettings.DEFAULT_RNR_TIMER);

    private final SimulatedFabric fabric;
    /** The listeners of every host on the fabric; each knows its host by its port. */
    private final List<Listener> listeners = new ArrayList<>();

    SimulatedConnectionManager(SimulatedFabric fabric) {
        this.fabric = fabric;
    }

    ListenerHandle listen(SimulatedContext context, InetSocketAddress address, int backlog) {
        if (backlog < 1) {
            throw Failures.invalid("rdma_listen", "backlog " + backlog + " < 1");
        }
        InetAddress ip = address.getAddress();
        SimulatedPort port = ip.isAnyLocalAddress() || ip.isLoopbackAddress() ? firstPort(context.device())
                : portOwning(ip);
        if (port == null || port.device() != context.device()) {
            throw new VerbsException("rdma_bind_addr", Errno.EADDRNOTAVAIL, ip.getHostAddress()
                    + " is not an address of " + context.device().name(), "listen on 0.0.0.0 or on "
                    + ipv4Of(firstPort(context.device())) + " (the RoCE GID of port 1)");
        }
        SimulatedHost host = context.device().host();
        synchronized (listeners) {
            int number = address.getPort() == 0 ? unboundEphemeralPort(host, ip) : address.getPort();
            Listener existing = boundTo(host, number, ip);
            if (existing != null) {
                throw new VerbsException("rdma_bind_addr", Errno.EADDRINUSE, existing.address + " is already "
                        + "listened on", "choose another port, or port 0 for one the host picks");
            }
            Listener listener = new Listener(new InetSocketAddress(ip, number), port, backlog);
            listeners.add(listener);
            host.census().created(ResourceKind.CONNECTION_LISTENER);
            return listener;
        }
    }

    /**
     * The listener of {@code host} that holds port {@code number} for {@code ip}: on the same
     * address, or where either is the wildcard; null when the port is free there. Lock held.
     */
    private @Nullable Listener boundTo(SimulatedHost host, int number, InetAddress ip) {
        for (Listener existing : listeners) {
            InetAddress bound = existing.address.getAddress();
            if (existing.host() == host && existing.address.getPort() == number
                    && (bound.equals(ip) || bound.isAnyLocalAddress() || ip.isAnyLocalAddress())) {
                return existing;
            }
        }
        return null;
    }

    /** The next of {@code host}'s ephemeral ports that no listener of it holds for {@code ip}. Lock held. */
    private int unboundEphemeralPort(SimulatedHost host, InetAddress ip) {
        int number = host.nextEphemeralPort();
        while (boundTo(host, number, ip) != null) {
            number = host.nextEphemeralPort();
        }
        return number;
    }

    ConnectionHandle connect(SimulatedContext context, InetSocketAddress remote, SimulatedQp qp, byte[] privateData,
                             long timeoutNanos, ReliabilitySettings reliability, Runnable beforeHandshake)
            throws InterruptedException {
        InetAddress ip = remote.getAddress();
        SimulatedHost host = context.device().host();
        SimulatedPort local = firstPort(context.device());
        SimulatedPort target = ip.isLoopbackAddress() ? local : portOwning(ip);
        if (target == null) {
            throw new VerbsException("rdma_resolve_addr", Errno.EHOSTUNREACH, ip.getHostAddress()
                    + " is not the address of any RDMA port of the fabric", "connect to a port's RoCE address ("
                    + ipv4Of(local) + " here) or to 127.0.0.1; sessions reach one another only on a SharedFabric"
                    + " of the same name");
        }
        // as librdmacm does once the route is resolved: the QP is in INIT before the request goes out
        toInit(qp, local);
        beforeHandshake.run();
        Listener listener = find(remote.getPort(), ip, target);
        if (listener == null) {
            throw new VerbsException("rdma_connect", Errno.ECONNREFUSED, "nobody listens on " + remote,
                    "start the listener first, or retry");
        }
        if (!exchangeGetsThrough(local, target)) {
            TimeUnit.NANOSECONDS.sleep(timeoutNanos);
            throw new VerbsException("rdma_connect", Errno.ETIMEDOUT, "no answer from " + remote + " within "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms: every try of the request or its reply was"
                    + " lost (a port down or a link losing packets)", "check the link, or retry once it is back");
        }
        int psn = ThreadLocalRandom.current().nextInt(1 << 24);
        InetSocketAddress self = new InetSocketAddress(ipv4Of(local), host.nextEphemeralPort());
        Request request = new Request(qp, local, psn, privateData, self);
        if (!listener.requests.offer(request)) {
            throw new VerbsException("rdma_connect", Errno.ECONNREFUSED, "the backlog of " + listener.backlog
                    + " pending requests at " + remote + " is full", "accept faster or raise the backlog");
        }
        Reply reply;
        try {
            reply = request.reply.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            request.reply.cancel(false);
            throw new VerbsException("rdma_connect", Errno.ETIMEDOUT, "no answer from " + remote + " within "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms", "check that the server accepts");
        } catch (ExecutionException e) {
            throw (VerbsException) e.getCause();
        }
        try {
            walkToReadyToSend(qp, local, reply.serverQp, reply.serverPort, reply.psn, psn, reliability);
        } catch (VerbsException e) {
            reply.established.completeExceptionally(e);
            throw e;
        }
        Connection clientSide = new Connection(local, reply.serverPort, reply.privateData, remote);
        clientSide.pairWith(reply.serverSide);
        reply.established.complete(null);
        return clientSide;
    }

    /**
     * Whether a connection request from {@code local} and its reply from {@code target} get
     * through: the connection manager's messages cross the link like any packet (a port down or a
     * link's loss loses them) and a lost one is sent again, up to {@link #EXCHANGE_TRIES} times,
     * as the IB CM retries its REQ; a partition or a port down loses every try.
     */
    private static boolean exchangeGetsThrough(SimulatedPort local, SimulatedPort target) {
        for (int attempt = 0; attempt < EXCHANGE_TRIES; attempt++) {
            if (local.carriesManagement(target) && target.carriesManagement(local)) {
                return true;
            }
        }
        return false;
    }

    private @Nullable Listener find(int portNumber, InetAddress ip, SimulatedPort target) {
        synchronized (listeners) {
            for (Listener listener : listeners) {
                InetAddress bound = listener.address.getAddress();
                boolean sameDevice = listener.port.device() == target.device();
                if (listener.address.getPort() == portNumber && sameDevice
                        && (bound.isAnyLocalAddress() || bound.equals(ip) || ip.isLoopbackAddress())) {
                    return listener;
                }
            }
            return null;
        }
    }

    /** RESET → INIT on {@code local}, with the access flags rdma_cm gives a connected QP. */
    private static void toInit(SimulatedQp qp, SimulatedPort local) {
        qp.modify(QueuePairAttributes.builder().state(QueuePairState.INIT).port(local.number()).pkeyIndex(0)
                .accessFlags(EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ,
                        AccessFlag.REMOTE_ATOMIC)).build());
    }

    /**
     * INIT → RTR → RTS towards the peer, with the attributes rdma_cm would compute, the
     * reliability attributes {@code reliability} sets in place of rdma_cm's.
     */
    // effective is reliability.or(CONNECTION_MANAGER_DEFAULTS), which sets all four: none is null
    @SuppressWarnings("NullAway")
    private static void walkToReadyToSend(SimulatedQp qp, SimulatedPort local, SimulatedQp peer, SimulatedPort remote,
                                          int remotePsn, int localPsn, ReliabilitySettings reliability) {
        ReliabilitySettings effective = reliability.or(CONNECTION_MANAGER_DEFAULTS);
        if (qp.state() != QueuePairState.INIT) {
            throw Failures.invalid("rdma_connect", "QP 0x" + Integer.toHexString(qp.qpNumber()) + " left INIT "
                    + "while connecting");
        }
        boolean global = local.isEthernet() || remote.isEthernet();
        AddressVector path = global
                ? new AddressVector(0, 0, 0, local.number(), GlobalRoute.to(remote.gids().get(1), 1))
                : AddressVector.ofLid(remote.lid(), local.number());
        Mtu mtu = local.device().spec().mtu().min(remote.device().spec().mtu());
        int rdAtomic = Math.min(MAX_RD_ATOMIC, local.device().spec().maxQpRdAtom());
        qp.modify(QueuePairAttributes.builder().state(QueuePairState.RTR).addressVector(path).pathMtu(mtu)
                .destQpNumber(peer.qpNumber()).receivePsn(remotePsn).maxDestRdAtomic(rdAtomic)
                .minRnrTimer(effective.rnrTimer()).build());
        qp.modify(QueuePairAttributes.builder().state(QueuePairState.RTS).sendPsn(localPsn)
                .timeout(effective.ackTimeout()).retryCount(effective.retryCount()).rnrRetry(effective.rnrRetry())
                .maxRdAtomic(rdAtomic).build());
    }

    private @Nullable SimulatedPort portOwning(InetAddress ip) {
        return ip instanceof Inet4Address ? fabric.portByGid(Gid.parse(ip.getHostAddress())) : null;
    }

    private static SimulatedPort firstPort(SimulatedDevice device) {
        for (SimulatedPort port : device.ports()) {
            if (port.attributes().state() == PortState.ACTIVE) {
                return port;
            }
        }
        return device.ports().getFirst();
    }

    private static String ipv4Of(SimulatedPort port) {
        return port.gids().get(1).ipv4Address().orElseThrow();
    }

    private record Request(SimulatedQp clientQp, SimulatedPort clientPort, int psn, byte[] privateData,
                           InetSocketAddress clientAddress, CompletableFuture<Reply> reply) {
        Request(SimulatedQp clientQp, SimulatedPort clientPort, int psn, byte[] privateData,
                InetSocketAddress clientAddress) {
            this(clientQp, clientPort, psn, privateData, clientAddress, new CompletableFuture<>());
        }
    }

    private record Reply(SimulatedQp serverQp, SimulatedPort serverPort, int psn, byte[] privateData,
                         Connection serverSide, CompletableFuture<Void> established) {
    }

    /** A listening id of the host its port is on: requests wait in a queue as long as the backlog. */
    private final class Listener implements ListenerHandle {

        private final InetSocketAddress address;
        private final SimulatedPort port;
        private final int backlog;
        private final BlockingQueue<Request> requests;

        Listener(InetSocketAddress address, SimulatedPort port, int backlog) {
            this.address = address;
            this.port = port;
            this.backlog = backlog;
            this.requests = new ArrayBlockingQueue<>(backlog);
        }

        SimulatedHost host() {
            return port.device().host();
        }

        @Override
        public InetSocketAddress localAddress() {
            return address;
        }

        @Override
        public @Nullable RequestHandle nextRequest(long waitNanos) throws InterruptedException {
            long deadline = System.nanoTime() + waitNanos;
            while (true) {
                Request request = requests.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (request == null) {
                    return null;
                }
                if (!request.reply.isDone()) { // else the client gave up waiting
                    return new PendingRequest(this, request);
                }
            }
        }

        @Override
        public void close() {
            synchronized (listeners) {
                listeners.remove(this);
            }
            host().census().destroyed(ResourceKind.CONNECTION_LISTENER);
            for (Request pending; (pending = requests.poll()) != null; ) {
                pending.reply.completeExceptionally(new VerbsException("rdma_connect", Errno.ECONNREFUSED,
                        "the listener on " + address + " closed", null));
            }
        }
    }

    /** A request taken from a listener's queue, its client waiting for the reply. */
    private record PendingRequest(Listener listener, Request request) implements RequestHandle {

        @Override
        public InetSocketAddress remoteAddress() {
            return request.clientAddress;
        }

        @Override
        public byte[] privateData() {
            return request.privateData.clone();
        }

        @Override
        public ConnectionHandle accept(QpHandle qpHandle, byte[] privateData, long handshakeNanos,
                                       ReliabilitySettings reliability, Runnable beforeHandshake)
                throws InterruptedException {
            SimulatedQp qp = (SimulatedQp) qpHandle;
            long deadline = System.nanoTime() + handshakeNanos;
            int psn = ThreadLocalRandom.current().nextInt(1 << 24);
            try {
                toInit(qp, listener.port);
                beforeHandshake.run();
                walkToReadyToSend(qp, listener.port, request.clientQp, request.clientPort, request.psn, psn,
                        reliability);
            } catch (RuntimeException e) {
                reject();
                throw e;
            }
            Connection serverSide = new Connection(listener.port, request.clientPort,
                    request.privateData, request.clientAddress);
            Reply reply = new Reply(qp, listener.port, psn, privateData, serverSide, new CompletableFuture<>());
            if (!request.reply.complete(reply)) {
                abandon(serverSide, qp);
                throw new VerbsException("rdma_accept", Errno.ECONNRESET, "the client at " + request.clientAddress
                        + " gave up waiting", "accept the next request");
            }
            try {
                reply.established.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                abandon(serverSide, qp);
                throw new VerbsException("rdma_accept", Errno.ETIMEDOUT, "the client at "
                        + request.clientAddress + " did not establish the connection within "
                        + TimeUnit.NANOSECONDS.toMillis(handshakeNanos) + " ms", "retry the accept, or give the"
                        + " handshake more time");
            } catch (ExecutionException | CancellationException e) {
                abandon(serverSide, qp);
                throw new VerbsException("rdma_accept", Errno.ECONNRESET, "the client at "
                        + request.clientAddress + " did not establish the connection", "retry the accept");
            } catch (InterruptedException e) {
                // as librdmacm's id is released when the wait for ESTABLISHED is interrupted: nothing is left behind
                abandon(serverSide, qp);
                throw e;
            }
            return serverSide;
        }

        /** The server's side of a handshake that did not complete: released, its QP back in RESET for another. */
        private static void abandon(Connection serverSide, SimulatedQp qp) {
            serverSide.disconnect();
            qp.modify(QueuePairAttributes.builder().state(QueuePairState.RESET).build());
        }

        @Override
        public void reject() {
            request.reply.completeExceptionally(new VerbsException("rdma_connect", Errno.ECONNREFUSED,
                    "the listener on " + listener.address + " rejected the request", "connect again later"));
        }
    }

    /**
     * One end of an established connection, counted on the host of its end: what the peer sent,
     * where it is, and the other end, which hears of this end's disconnect as
     * {@code RDMA_CM_EVENT_DISCONNECTED}.
     */
    private static final class Connection implements ConnectionHandle {

        private final SimulatedHost host;
        private final SimulatedPort localPort;
        private final SimulatedPort remotePort;
        private final byte[] peerPrivateData;
        private final InetSocketAddress remoteAddress;
        private final PeerDisconnectNotice peerDisconnect;
        private @Nullable Connection peer;
        private boolean disconnected;

        Connection(SimulatedPort localPort, SimulatedPort remotePort, byte[] peerPrivateData,
                   InetSocketAddress remoteAddress) {
            this.host = localPort.device().host();
            this.localPort = localPort;
            this.remotePort = remotePort;
            this.peerPrivateData = peerPrivateData;
            this.remoteAddress = remoteAddress;
            this.peerDisconnect = new PeerDisconnectNotice(host.fabric()::defer);
            host.census().created(ResourceKind.CONNECTION);
        }

        void pairWith(Connection other) {
            synchronized (this) {
                peer = other;
            }
            synchronized (other) {
                other.peer = this;
            }
        }

        @Override
        public byte[] peerPrivateData() {
            return peerPrivateData.clone();
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return remoteAddress;
        }

        @Override
        public void onPeerDisconnect(Runnable action) {
            peerDisconnect.onDisconnect(action);
        }

        /**
         * Releases the id and tells the peer, as {@code rdma_disconnect} does over the wire: a port
         * down or a partition loses the message, and the id is gone before it could be sent again
         * (librdmacm's {@code rdma_destroy_id} stops the DREQ's retries), so the peer never hears.
         */
        @Override
        public void disconnect() {
            Connection other;
            synchronized (this) {
                if (disconnected) {
                    return;
                }
                disconnected = true;
                other = peer;
            }
            host.census().destroyed(ResourceKind.CONNECTION);
            if (other != null && localPort.carriesManagement(remotePort)) {
                other.peerDisconnect.disconnected();
            }
        }
    }
}

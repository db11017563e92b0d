package io.rdma.boot.autoconfigure.connection;

import io.rdma.verbs.api.ConnectOptions;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairState;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;

/**
 * Connects queue pairs of the simulated fabric within one JVM, standing in for rdma_cm: a
 * listener publishes its QP under {@code address:port}; a connecting QP looks it up, and both
 * walk RESET → INIT → RTR → RTS towards each other's endpoint (manual §11.2 exchange, done in
 * memory instead of over a socket). One process-wide registry, so applications (contexts)
 * running in the same JVM find each other as they would over the network.
 */
public final class InJvmConnectionManager {

    private static final InJvmConnectionManager SHARED = new InJvmConnectionManager();

    private record Listener(QueuePair qp, ConnectOptions options) {
    }

    private final Map<String, Listener> listeners = new ConcurrentHashMap<>();
    private final Map<QueuePair, List<Runnable>> connectedCallbacks = new ConcurrentHashMap<>();

    public static InJvmConnectionManager shared() {
        return SHARED;
    }

    /**
     * Publishes {@code qp} under {@code address:port}; a second listener on the same address fails
     * (EADDRINUSE) unless the first one's QP is closed (its application is gone).
     */
    public void listen(String address, int port, QueuePair qp, ConnectOptions options) {
        Listener listener = new Listener(qp, options);
        Listener current = listeners.compute(key(address, port),
                (key, existing) -> existing == null || existing.qp().isClosed() ? listener : existing);
        if (current != listener) {
            throw new IllegalStateException("another queue pair already listens on " + key(address, port)
                    + " (EADDRINUSE)");
        }
    }

    /**
     * Runs {@code callback} each time {@code qp} has been (re)connected: a reconnection passes
     * through RESET, which drops posted receives, so whoever keeps the receive queue filled must
     * post again.
     */
    public void onConnected(QueuePair qp, Runnable callback) {
        connectedCallbacks.computeIfAbsent(qp, key -> new CopyOnWriteArrayList<>()).add(callback);
    }

    public void unlisten(String address, int port, QueuePair qp) {
        listeners.computeIfPresent(key(address, port), (key, listener) -> listener.qp() == qp ? null : listener);
    }

    /**
     * Connects {@code qp} to the listener at {@code host:port}, waiting up to {@code timeout} for
     * it to appear. Both QPs are reset first, so a reconnection starts from a clean state.
     */
    public void connect(String host, int port, QueuePair qp, ConnectOptions options, Duration timeout)
            throws TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Listener listener;
        while ((listener = listeners.get(key(host, port))) == null || listener.qp().isClosed()) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("nothing listens on " + key(host, port) + " (ECONNREFUSED after "
                        + timeout + ")");
            }
            Thread.sleep(10);
        }
        synchronized (listener) {
            QueuePair remote = listener.qp();
            reset(qp);
            reset(remote);
            remote.connect(qp.localEndpoint(options.port(), options.gidIndex(), options.sendPsn()),
                    listener.options());
            qp.connect(remote.localEndpoint(listener.options().port(), listener.options().gidIndex(),
                    listener.options().sendPsn()), options);
            connected(remote);
            connected(qp);
        }
    }

    private void connected(QueuePair qp) {
        connectedCallbacks.getOrDefault(qp, List.of()).forEach(Runnable::run);
        connectedCallbacks.keySet().removeIf(QueuePair::isClosed);
    }

    /**
     * ERR first, so whatever is still posted completes as flushed and its owner learns of it;
     * RESET alone would drop it silently.
     */
    private static void reset(QueuePair qp) {
        QueuePairState state = qp.state();
        if (state != QueuePairState.RESET) {
            if (state != QueuePairState.ERR) {
                qp.toError();
            }
            qp.reset();
        }
    }

    private static String key(String address, int port) {
        String host = address == null || address.isBlank() || address.equals("0.0.0.0") ? "localhost" : address;
        if (host.equals("127.0.0.1") || host.equals("::1")) {
            host = "localhost";
        }
        return host + ":" + port;
    }
}

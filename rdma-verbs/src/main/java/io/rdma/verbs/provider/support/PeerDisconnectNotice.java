package io.rdma.verbs.provider.support;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * The actions waiting for a connection's peer to disconnect
 * ({@link io.rdma.verbs.spi.ConnectionManagerHandle.ConnectionHandle#onPeerDisconnect}): each runs once, on
 * {@code executor}, when the disconnect arrives, or at once if it already has.
 */
public final class PeerDisconnectNotice {

    private final Executor executor;
    private final List<Runnable> waiting = new ArrayList<>();
    private boolean disconnected;

    public PeerDisconnectNotice(Executor executor) {
        this.executor = executor;
    }

    public void onDisconnect(Runnable action) {
        synchronized (this) {
            if (!disconnected) {
                waiting.add(action);
                return;
            }
        }
        executor.execute(action);
    }

    /** The peer disconnected: runs every waiting action. */
    public void disconnected() {
        List<Runnable> actions;
        synchronized (this) {
            disconnected = true;
            actions = List.copyOf(waiting);
            waiting.clear();
        }
        actions.forEach(executor::execute);
    }
}

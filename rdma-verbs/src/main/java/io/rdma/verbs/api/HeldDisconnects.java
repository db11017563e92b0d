package io.rdma.verbs.api;

import java.util.ArrayList;
import java.util.List;

/**
 * The connection manager messages a device context's connections and requests send as they go
 * (a disconnect's DREQ, a rejection's REJ, each sent with the id's release), held while no port
 * of the device is ACTIVE and sent once one is again, on {@code IBV_EVENT_PORT_ACTIVE}.
 *
 * <p>Why: a message sent while the link is down cannot get through, and on rxe the one that fails
 * moves the device's GSI queue pair (QP 1) to ERR, where the kernel's MAD layer, which expects the
 * send queue error state, never reposts its receives: the device's connection manager hears
 * nothing more until rxe is made anew (docs/reliability.md, "A link that goes down and up
 * again"). Held, the message reaches the peer once the link is back, so its listener lets the
 * connection go instead of keeping it for a client that left. What it cannot prevent is the
 * kernel's connection manager sending one again on its own while the link is down.
 *
 * <p>A held id outlives the resource whose close held it: the provider's census counts it until
 * it is sent. Closing the context sends what is held at once, ports or not, as nothing may
 * outlive the context. Thread-safe.
 */
final class HeldDisconnects implements AsyncEventListener {

    private static final System.Logger LOG = System.getLogger(HeldDisconnects.class.getName());

    private final DeviceContext context;
    /** Guarded by {@code this}. */
    private final List<Held> held = new ArrayList<>();

    HeldDisconnects(DeviceContext context) {
        this.context = context;
    }

    /**
     * Sends at once while a port is ACTIVE (or the ports cannot be queried: no event would ever
     * release a hold), throwing what the send fails with; holds it otherwise, to be sent when a port
     * is ACTIVE again, and returns.
     */
    void sendOrHold(String description, Runnable send) {
        if (context.hasActivePortOrCannotTell()) {
            send.run();
            return;
        }
        synchronized (this) {
            held.add(new Held(description, send));
        }
        LOG.log(System.Logger.Level.INFO, () -> "Holding the " + description + " until a port of "
                + context.deviceName() + " is ACTIVE again: a connection manager message sent while no port is "
                + "ACTIVE cannot get through, and on rxe it leaves the device's connection manager deaf");
        // the port may have come back between the check and the hold, its event dispatched already
        if (context.hasActivePortOrCannotTell()) {
            sendHeld("a port is ACTIVE again");
        }
    }

    @Override
    public void onEvent(AsyncEvent event) {
        if (event.type() == AsyncEventType.PORT_ACTIVE && isHolding()) {
            // The event thread must not wait for the sends (a disconnect waits for the id's own events).
            // A platform thread: the sends block in librdmacm, which pins a virtual thread to its
            // carrier, and under load a virtual thread waits for a carrier behind the application's own
            // (on a one-CPU rxe0 guest serving HTTP, 15 s and 85 s after PORT_ACTIVE: the connections
            // came back only then)
            Thread.ofPlatform().daemon().name("rdma-held-disconnects-" + context.deviceName())
                    .start(() -> sendHeld("port " + event.portNumber() + " is ACTIVE again"));
        }
    }

    /** Sends everything held, whatever the ports' state: the context is closing. */
    void sendAllNow() {
        sendHeld("its device context is closing");
    }

    private synchronized boolean isHolding() {
        return !held.isEmpty();
    }

    /** Under the context's lifecycle lock, so that no send runs while the context closes. */
    private void sendHeld(String why) {
        context.lifecycleLock().lock();
        try {
            List<Held> sending;
            synchronized (this) {
                sending = List.copyOf(held);
                held.clear();
            }
            for (Held message : sending) {
                try {
                    message.send().run();
                    LOG.log(System.Logger.Level.INFO, () -> "Sent the held " + message.description() + " of "
                            + context.deviceName() + ": " + why);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "The held " + message.description() + " of "
                            + context.deviceName() + " failed; its id is released all the same", e);
                }
            }
        } finally {
            context.lifecycleLock().unlock();
        }
    }

    private record Held(String description, Runnable send) {
    }
}

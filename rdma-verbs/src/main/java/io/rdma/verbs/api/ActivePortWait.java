package io.rdma.verbs.api;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Waits of a device context's users for a port of it to be ACTIVE again, woken by
 * {@code IBV_EVENT_PORT_ACTIVE} rather than by polling: a connection request can leave only then
 * ({@link ConnectionManager#connect} fails with ENETDOWN at once while no port is), so a
 * connection that lost its link tries again the moment the link is back, not after its backoff.
 * Thread-safe.
 */
final class ActivePortWait implements AsyncEventListener {

    private final DeviceContext context;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition activated = lock.newCondition();
    /** PORT_ACTIVE events seen; guarded by {@code lock}. */
    private long activations;

    ActivePortWait(DeviceContext context) {
        this.context = context;
    }

    @Override
    public void onEvent(AsyncEvent event) {
        if (event.type() == AsyncEventType.PORT_ACTIVE) {
            lock.lock();
            try {
                activations++;
                activated.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Whether a port is ACTIVE, at once or within {@code timeout}. A device whose ports cannot be
     * queried (removed, say) is not waited for: no port event would end the wait, and the next
     * verb reports what became of it.
     */
    boolean await(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (true) {
                // an event that comes between the query and the wait is counted, so it is not missed
                long seen = activations;
                if (context.hasActivePortOrCannotTell()) {
                    return true;
                }
                while (activations == seen) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    activated.awaitNanos(left);
                }
            }
        } finally {
            lock.unlock();
        }
    }
}

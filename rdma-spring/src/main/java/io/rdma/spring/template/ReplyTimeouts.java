package io.rdma.spring.template;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The reply timeouts of every channel, on one daemon thread for the JVM: each request carries its
 * deadline, and the thread looks through the {@link PendingRequests} of the channels that have
 * had requests lately every {@link #TICK}, failing those past their deadline. Nothing is
 * scheduled, allocated or woken per request (a timer task per request cost a wake-up of the
 * timer's thread, a thread switch, on every round trip), and a request answered in time keeps
 * nothing behind. A timeout fires up to a tick late. While no channel is watched the thread parks.
 */
final class ReplyTimeouts {

    /** How often the pending requests are looked through: how late a timeout may fire. */
    static final Duration TICK = Duration.ofMillis(5);

    private static final Set<PendingRequests> WATCHED = ConcurrentHashMap.newKeySet();
    private static final Thread SWEEPER = Thread.ofPlatform().daemon().name("rdma-reply-timeouts")
            .start(ReplyTimeouts::sweep);

    private ReplyTimeouts() {
    }

    /** {@code pending} has requests: its timeouts are watched from now on, until it {@link #unwatch unwatches}. */
    static void watch(PendingRequests pending) {
        WATCHED.add(pending);
        LockSupport.unpark(SWEEPER);
    }

    /** {@code pending} has had no request waiting for a while. */
    static void unwatch(PendingRequests pending) {
        WATCHED.remove(pending);
    }

    private static void sweep() {
        long tick = TICK.toNanos();
        while (true) {
            if (WATCHED.isEmpty()) {
                LockSupport.park();
                continue;
            }
            LockSupport.parkNanos(tick);
            long now = System.nanoTime();
            for (PendingRequests pending : WATCHED) {
                pending.expire(now);
            }
        }
    }
}

package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.provider.support.LiveObjectCensus;
import io.rdma.verbs.spi.ChannelHandle;
import io.rdma.verbs.spi.CqHandle;

import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/** A completion channel: armed CQs queue an event here when their next completion arrives. */
final class SimulatedChannel implements ChannelHandle {

    private final LiveObjectCensus census;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition signalled = lock.newCondition();
    private final ArrayDeque<SimulatedCq> events = new ArrayDeque<>();
    /** Guarded by {@link #lock}. */
    private boolean shutdown;
    /** Threads inside {@link #awaitEvent}; guarded by {@link #lock}. */
    private int waiters;

    SimulatedChannel(LiveObjectCensus census) {
        this.census = census;
    }

    void signal(SimulatedCq cq) {
        lock.lock();
        try {
            events.add(cq);
            signalled.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public @Nullable CqHandle awaitEvent(long timeoutNanos) throws InterruptedException {
        lock.lock();
        waiters++;
        try {
            long remaining = timeoutNanos;
            while (events.isEmpty() && !shutdown) {
                if (remaining <= 0) {
                    return null;
                }
                remaining = signalled.awaitNanos(remaining);
            }
            return shutdown ? null : events.poll();
        } finally {
            waiters--;
            lock.unlock();
        }
    }

    /** A destroyed CQ's pending events go with it, as {@code ibv_destroy_cq} requires them acknowledged. */
    void discard(SimulatedCq cq) {
        lock.lock();
        try {
            events.removeIf(pending -> pending == cq);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void shutdown() {
        lock.lock();
        try {
            shutdown = true;
            signalled.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void destroy() {
        lock.lock();
        try {
            // ibv_destroy_comp_channel closes the fd a native waiter polls and frees what it
            // reads: the API must never do it under a waiter, and the fabric says so loudly
            if (waiters > 0) {
                throw new IllegalStateException("ibv_destroy_comp_channel while " + waiters
                        + " thread(s) wait on the channel");
            }
        } finally {
            lock.unlock();
        }
        census.destroyed(ResourceKind.COMPLETION_CHANNEL);
    }
}

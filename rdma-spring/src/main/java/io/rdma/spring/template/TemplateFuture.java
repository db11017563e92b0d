package io.rdma.spring.template;

import io.rdma.spring.completion.PollerHandOff;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

/**
 * The futures of the {@link RdmaTemplate}'s calls, and those chained to them (a typed call's
 * conversion, a caller's {@code thenApply}): a caller that waits for one does two things before
 * it parks. On a thread that runs a listener's method for the CQ it polled, it polls that CQ
 * while nobody else does ({@link PollerHandOff#pollWhileWaiting}): a method that waits for a call
 * of its own leaves its CQ unpolled for no moment, nor waits for a thread to be called to poll
 * it. Then it spins a while ({@link #spinBeforeParkingNanos}): an answer on the simulated fabric
 * or a local device comes within microseconds, and a parked caller is woken by a thread switch
 * that costs more than the wait it ends. Longer waits park as before.
 */
sealed class TemplateFuture<T extends @Nullable Object> extends CompletableFuture<T> permits TemplateOperation {

    /** How long a caller spins before it parks, unless the operation knows that its outcome takes longer. */
    static final long SPIN_BEFORE_PARKING_NANOS = 20_000;

    /** How long a caller waiting for this future spins before it parks. */
    long spinBeforeParkingNanos() {
        return SPIN_BEFORE_PARKING_NANOS;
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        awaitBeforeParking(Long.MAX_VALUE);
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        long timeoutNanos = Math.max(0, unit.toNanos(timeout));
        long start = System.nanoTime();
        awaitBeforeParking(timeoutNanos);
        return super.get(Math.max(0, timeoutNanos - (System.nanoTime() - start)), TimeUnit.NANOSECONDS);
    }

    @Override
    public T join() {
        awaitBeforeParking(Long.MAX_VALUE);
        return super.join();
    }

    /** A future chained to this one is a template future too: a caller waits for it the same way. */
    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new TemplateFuture<>();
    }

    private void awaitBeforeParking(long timeoutNanos) {
        if (isDone() || timeoutNanos == 0) {
            return;
        }
        long start = System.nanoTime();
        PollerHandOff.pollWhileWaiting(this, timeoutNanos);
        // the time it polled counts as spun: a caller that polled its CQ a while parks now
        long spin = Math.min(spinBeforeParkingNanos(), timeoutNanos);
        while (!isDone() && System.nanoTime() - start < spin) {
            Thread.onSpinWait();
        }
    }
}

package io.rdma.spring.completion;

import io.rdma.spring.resource.CompletionIdle;
import io.rdma.spring.resource.IdleBackoff;

import java.util.concurrent.locks.LockSupport;

/**
 * What one poller thread does after a poll found its queue empty ({@link CompletionIdle}): a
 * spin-wait hint, or the steps of its {@link IdleBackoff}, counted from the last completion.
 * Used by that thread only.
 */
final class PollerIdle {

    private final long spins;
    private final long spinsAndYields;
    private final long minParkNanos;
    private final long maxParkNanos;
    private long emptyPolls;
    private long parkNanos;

    PollerIdle(CompletionIdle idle, IdleBackoff backoff) {
        this.spins = idle == CompletionIdle.SPIN ? Long.MAX_VALUE : backoff.spins();
        this.spinsAndYields = idle == CompletionIdle.SPIN ? Long.MAX_VALUE : spins + backoff.yields();
        this.minParkNanos = backoff.minPark().toNanos();
        this.maxParkNanos = backoff.maxPark().toNanos();
        reset();
    }

    /** A completion came: the next empty poll starts again from the spins. */
    void reset() {
        emptyPolls = 0;
        parkNanos = minParkNanos;
    }

    /** After an empty poll. */
    void idle() {
        if (emptyPolls < spins) {
            emptyPolls++;
            Thread.onSpinWait();
        } else if (emptyPolls < spinsAndYields) {
            emptyPolls++;
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(Math.max(parkNanos * 2, 1), maxParkNanos);
        }
    }
}

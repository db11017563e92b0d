package io.rdma.verbs.api;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.ObjLongConsumer;
import java.util.function.ToIntBiFunction;
import java.util.function.ToLongFunction;

/**
 * Keeps a resource's provider object alive while a method uses it outside any data-path lock
 * (a counter read by a metrics scrape, a thread waiting on a channel): uses hold the guard
 * shared, the destroy exclusively. So a destroy waits for the uses in progress, and a use that
 * starts after it finds the resource closed, never a freed provider object. The accessors take
 * unbound method references, which allocate nothing.
 */
final class UseGuard {

    private final VerbsResource owner;
    private final ReadWriteLock lock = new ReentrantReadWriteLock();

    UseGuard(VerbsResource owner) {
        this.owner = owner;
    }

    /** What {@code value} reads from {@code handle}, while the owner is open. */
    <H> long read(H handle, ToLongFunction<H> value) {
        Lock use = lock.readLock();
        use.lock();
        try {
            owner.ensureOpen();
            return value.applyAsLong(handle);
        } finally {
            use.unlock();
        }
    }

    /** What {@code read} answers after reading from {@code handle} into {@code target}, while the owner is open. */
    <H, T> int readInto(H handle, T target, ToIntBiFunction<H, T> read) {
        Lock use = lock.readLock();
        use.lock();
        try {
            owner.ensureOpen();
            return read.applyAsInt(handle, target);
        } finally {
            use.unlock();
        }
    }

    /** Applies {@code change} with {@code value} to {@code handle}, while the owner is open. */
    <H> void change(H handle, ObjLongConsumer<H> change, long value) {
        Lock use = lock.readLock();
        use.lock();
        try {
            owner.ensureOpen();
            change.accept(handle, value);
        } finally {
            use.unlock();
        }
    }

    /** The shared side, for a use that blocks (and may be interrupted) inside the provider. */
    Lock shared() {
        return lock.readLock();
    }

    /** Runs the destroy once no use is in progress, and marks the owner closed if it succeeds. */
    void destroy(Runnable destroy) {
        Lock exclusive = lock.writeLock();
        exclusive.lock();
        try {
            destroy.run();
            owner.markClosed();
        } finally {
            exclusive.unlock();
        }
    }
}

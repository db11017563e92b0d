package io.rdma.verbs.provider.simulated;

import java.util.concurrent.locks.ReentrantLock;

/**
 * A lock held for well under a microsecond on the data path (a receive queue, a CQ's
 * producers, a QP's send queue). A contender spins briefly before it parks, because waking
 * a parked thread costs tens of microseconds, a hundred times the wait it avoided.
 */
final class DataPathLock extends ReentrantLock {

    private static final int SPINS = 512;

    @Override
    public void lock() {
        for (int i = 0; i < SPINS; i++) {
            if (tryLock()) {
                return;
            }
            Thread.onSpinWait();
        }
        super.lock();
    }
}

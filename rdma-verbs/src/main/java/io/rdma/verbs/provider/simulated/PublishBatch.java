package io.rdma.verbs.provider.simulated;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Completions written during one post, or one run of a send queue that a retry or a posted
 * receive resumed, become visible to pollers together at its end, as a NIC writes CQEs and then
 * moves the producer index: the poller's cache line holding the tail moves once per post
 * instead of once per completion, and what the run changed besides (a QP entering ERR) is
 * visible with them. Elsewhere (the event thread's flushes) completions are published at once.
 * One batch per thread, reused.
 */
final class PublishBatch {

    private static final ThreadLocal<PublishBatch> CURRENT = ThreadLocal.withInitial(PublishBatch::new);
    private static final int MAX_PENDING = 8;

    private final @Nullable SimulatedCq[] pending = new SimulatedCq[MAX_PENDING];
    private int count;
    private int depth;

    static PublishBatch open() {
        PublishBatch batch = CURRENT.get();
        batch.depth++;
        return batch;
    }

    /** Whether {@code cq} will be published when the open batch closes; false when none is open (publish now). */
    static boolean defer(SimulatedCq cq) {
        PublishBatch batch = CURRENT.get();
        if (batch.depth == 0) {
            return false;
        }
        for (int i = 0; i < batch.count; i++) {
            if (batch.pending[i] == cq) {
                return true;
            }
        }
        if (batch.count == MAX_PENDING) {
            return false;
        }
        batch.pending[batch.count++] = cq;
        return true;
    }

    void close() {
        if (--depth > 0) {
            return;
        }
        for (int i = 0; i < count; i++) {
            Objects.requireNonNull(pending[i]).publish(); // entries below count are set
            pending[i] = null;
        }
        count = 0;
    }
}

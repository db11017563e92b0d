package io.rdma.verbs.api;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * The QPs whose completions land in one queue of a CQ, found by QP number on every poll: a
 * copy-on-write array, so a poll reads it without a lock and without allocating, while QPs
 * joining and leaving (rare) copy it.
 */
final class QueuePairsByNumber {

    private volatile QueuePair[] members = new QueuePair[0];

    synchronized void add(QueuePair qp) {
        QueuePair[] grown = Arrays.copyOf(members, members.length + 1);
        grown[grown.length - 1] = qp;
        members = grown;
    }

    synchronized void remove(QueuePair qp) {
        members = Arrays.stream(members).filter(member -> member != qp).toArray(QueuePair[]::new);
    }

    /** The member numbered {@code qpNumber}, or null when that QP has left (or never joined). */
    @Nullable QueuePair find(int qpNumber) {
        for (QueuePair qp : members) {
            if (qp.qpNumber() == qpNumber) {
                return qp;
            }
        }
        return null;
    }
}

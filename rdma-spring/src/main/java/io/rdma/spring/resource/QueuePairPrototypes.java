package io.rdma.spring.resource;

import io.rdma.verbs.api.QueuePair;

/**
 * Creates queue pairs from the declared queue pair prototypes: a listener takes one per accepted
 * peer, on the prototype's PD and CQs with its counters attached.
 */
@FunctionalInterface
public interface QueuePairPrototypes {

    /**
     * A new queue pair from prototype {@code prototype}; the caller owns it and closes it before the
     * declared resources go.
     *
     * @throws IllegalArgumentException when no prototype of that name is declared
     * @throws io.rdma.verbs.api.VerbsException when the device refuses the queue pair
     */
    QueuePair create(String prototype);
}

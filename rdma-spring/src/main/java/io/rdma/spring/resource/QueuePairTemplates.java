package io.rdma.spring.resource;

import io.rdma.verbs.api.QueuePair;

/**
 * Creates queue pairs from the declared queue pair templates: a listener takes one per accepted
 * peer, on the template's PD and CQs with its counters attached.
 */
@FunctionalInterface
public interface QueuePairTemplates {

    /**
     * A new queue pair from template {@code template}; the caller owns it and closes it before the
     * declared resources go.
     *
     * @throws IllegalArgumentException when no template of that name is declared
     * @throws io.rdma.verbs.api.VerbsException when the device refuses the queue pair
     */
    QueuePair create(String template);
}

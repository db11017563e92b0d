package io.rdma.spring.resource;

import io.rdma.verbs.api.QueuePair;

/**
 * Creates queue pairs from their declarations: one of a prototype for each peer a listener
 * accepts and each instance a service connection connects, and a declared queue pair anew for
 * each reconnection of the connection that runs on it (a connection is made on a queue pair that
 * was never connected, as librdmacm makes one per connection).
 */
public interface QueuePairFactory {

    /**
     * A new queue pair from prototype or declared queue pair {@code name}, on its PD and CQs with
     * its counters attached; the caller owns it and closes it before the declared resources go.
     *
     * @throws IllegalArgumentException when {@link #creates} is false for {@code name}
     * @throws io.rdma.verbs.api.VerbsException when the device refuses the queue pair
     */
    QueuePair create(String name);

    /**
     * Whether {@link #create} makes queue pairs of {@code name}: not for a queue pair the
     * application made itself, nor for one that flows steer packets to (a flow is made for one
     * queue pair).
     */
    boolean creates(String name);
}

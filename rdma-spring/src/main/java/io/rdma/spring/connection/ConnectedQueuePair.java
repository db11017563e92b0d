package io.rdma.spring.connection;

import io.rdma.verbs.api.QueuePair;

import java.net.InetSocketAddress;

import org.jspecify.annotations.Nullable;

/**
 * A queue pair that a declared connection brought up, as its observers see it.
 *
 * @param name       the name to send on through the {@code RdmaTemplate}: the declared queue
 *                   pair's name, or {@code <listener>#<n>} for the n-th peer a listener accepted
 *                   on a queue pair of its prototype
 * @param source     what observers register for: the declared queue pair's name, or the
 *                   listener's name for peers on prototype queue pairs
 * @param queuePair  the queue pair, in RTS
 * @param memoryPool the pool its buffers come from, or {@code null} when it has none
 * @param remote     the peer's address
 */
public record ConnectedQueuePair(String name, String source, QueuePair queuePair, @Nullable String memoryPool,
                                 InetSocketAddress remote) {
}

package io.rdma.spring.connection;

/**
 * A declared connection, or a peer of a declared listener, changed state. Published on the
 * thread that changed it (a connection thread, or the provider's event thread when a queue pair
 * fails), so a listener that blocks holds up the connection.
 *
 * <p>An outbound connection goes {@code CONNECTING → UP} when it connects,
 * {@code UP → CONNECTING} when its queue pair fails or the listener disconnects, and
 * {@code CONNECTING → DOWN} when a round of attempts failed (attempts go on). A listener's peer
 * goes {@code DOWN → UP} when it is accepted and {@code UP → DOWN} when it is let go (its queue
 * pair failed or it disconnected). Closing the application changes no state. When {@code UP} is
 * published the channel is UP already: a listener may send on it at once.
 *
 * @param name      the connection's name under {@code rdma.connections.outbound}, or the
 *                  listener's under {@code rdma.connections.listeners}
 * @param queuePair the queue pair it runs on: the declared one, or {@code <listener>#<n>} for the
 *                  n-th peer a listener accepted on a queue pair of its prototype
 * @param peer      the other end: {@code host:port} of the listener an outbound connection
 *                  connects to, or the accepted peer's address
 * @param oldState  the state before
 * @param newState  the state now
 */
public record RdmaConnectionStateChangedEvent(String name, String queuePair, String peer, ConnectionState oldState,
                                              ConnectionState newState) {
}

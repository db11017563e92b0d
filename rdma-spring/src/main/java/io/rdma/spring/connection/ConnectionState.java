package io.rdma.spring.connection;

/**
 * Where an outbound connection stands, as health and {@code /actuator/rdma} report it; a
 * listener's peer is UP from its acceptance until it is let go, then DOWN.
 */
public enum ConnectionState {
    /** Connected: the queue pair is in RTS towards the listener. */
    UP,
    /** Being connected, at startup or again after the queue pair failed. */
    CONNECTING,
    /** Every attempt of the last round failed; attempts go on at the longest backoff. */
    DOWN
}

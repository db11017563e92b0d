package io.rdma.spring.connection;

/**
 * Told when a declared connection's queue pair comes up and when it goes: a receiver keeps
 * the receive queue filled, and must fill it again after a reconnection, whose reset emptied
 * it. Called on the connection's own thread, never on a completion poller.
 */
public interface ConnectionObserver {

    /** The queue pair is in RTS; receives may be posted. */
    void connected(ConnectedQueuePair connection);

    /**
     * The queue pair was flushed (its flushed completions have been delivered) and is about to
     * be reset or closed.
     */
    default void disconnected(ConnectedQueuePair connection) {
    }
}

package io.rdma.spring.connection;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes the state changes of connections and of listeners' peers as
 * {@link RdmaConnectionStateChangedEvent}s. A failing application listener is logged: it must
 * not stop the connection from recovering.
 */
final class ConnectionStateEvents {

    private static final Log logger = LogFactory.getLog(ConnectionStateEvents.class);

    private final ApplicationEventPublisher events;

    ConnectionStateEvents(ApplicationEventPublisher events) {
        this.events = events;
    }

    /** Connection (or listener) {@code name} on {@code queuePair}, with {@code peer}, went from {@code oldState} to {@code newState}. */
    void changed(String name, String queuePair, String peer, ConnectionState oldState, ConnectionState newState) {
        try {
            events.publishEvent(new RdmaConnectionStateChangedEvent(name, queuePair, peer, oldState, newState));
        } catch (RuntimeException e) {
            logger.error("A listener of the state changes of RDMA connection '" + name + "' failed", e);
        }
    }
}

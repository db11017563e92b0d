package io.rdma.sample;

import io.rdma.spring.event.RdmaAsyncEvent;
import io.rdma.spring.connection.RdmaConnectionStateChangedEvent;
import io.rdma.spring.event.RdmaPortStateChangedEvent;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Logs what happens on the fabric, as the starter publishes it: ports going down and coming
 * back, the echo connection and the listener's clients changing state, and async events about
 * a declared resource (a queue pair that failed, say). These run on the provider's event thread
 * or a connection's thread, so they only log.
 */
@Component
class RdmaEventLog {

    private static final Log logger = LogFactory.getLog(RdmaEventLog.class);

    @EventListener
    void portChanged(RdmaPortStateChangedEvent event) {
        logger.warn("RDMA port " + event.device() + "/" + event.port() + ": " + event.oldState() + " -> "
                + event.newState());
    }

    @EventListener
    void connectionChanged(RdmaConnectionStateChangedEvent event) {
        logger.info("RDMA connection '" + event.name() + "' on queue pair '" + event.queuePair() + "' with "
                + event.peer() + ": " + event.oldState() + " -> " + event.newState());
    }

    @EventListener(condition = "#event.resourceName() != null")
    void resourceEvent(RdmaAsyncEvent event) {
        logger.warn("RDMA async event " + event.type() + " on " + event.resourceKind() + " '"
                + event.resourceName() + "' of " + event.device());
    }
}

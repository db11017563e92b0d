package io.rdma.spring.event;

import io.rdma.spring.completion.CompletionPollers;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.spring.resource.RdmaResources.ManagedResource;
import io.rdma.verbs.api.AsyncEvent;
import io.rdma.verbs.api.AsyncEventListener;
import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.api.VerbsResource;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

/**
 * Publishes every async event of the declared devices as an {@link RdmaAsyncEvent} with the
 * declared name of its resource, and each port state change its port events tell as an
 * {@link RdmaPortStateChangedEvent}, while the application runs: from before the completion
 * pollers start (so a failure while the connections come up is published) until after they stop.
 */
public final class RdmaAsyncEventPublisher implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(RdmaAsyncEventPublisher.class);

    /** A port of a declared device. */
    private record DevicePort(String device, int port) {
    }

    private final RdmaResources resources;
    private final ApplicationEventPublisher publisher;
    private final Map<DeviceContext, AsyncEventListener> listeners = new LinkedHashMap<>();
    /** The state each port was last known in; written by its device's event thread. */
    private final Map<DevicePort, PortState> portStates = new ConcurrentHashMap<>();
    private volatile boolean running;

    public RdmaAsyncEventPublisher(RdmaResources resources, ApplicationEventPublisher publisher) {
        this.resources = resources;
        this.publisher = publisher;
    }

    @Override
    public synchronized void start() {
        for (RdmaResources.Named<DeviceContext> device : resources.resources(DeviceContext.class)) {
            DeviceContext context = device.resource();
            for (int port = 1; port <= context.queryDevice().physicalPortCount(); port++) {
                portStates.put(new DevicePort(device.name(), port), context.queryPort(port).state());
            }
            AsyncEventListener listener = event -> publish(device.name(), context, event);
            context.addAsyncEventListener(listener);
            listeners.put(context, listener);
        }
        running = true;
    }

    private void publish(String device, DeviceContext context, AsyncEvent event) {
        VerbsResource resource = event.resource();
        Optional<ManagedResource> declared = resource == null ? Optional.empty() : resources.declarationOf(resource);
        publisher.publishEvent(new RdmaAsyncEvent(event.type(), device, event.portNumber(),
                declared.map(ManagedResource::name).orElse(null), resource == null ? null : resource.kind()));
        if (event.type() == AsyncEventType.PORT_ACTIVE || event.type() == AsyncEventType.PORT_ERR) {
            DevicePort port = new DevicePort(device, event.portNumber());
            PortState newState = event.type() == AsyncEventType.PORT_ACTIVE ? PortState.ACTIVE
                    : stateAfterError(context, event.portNumber());
            PortState oldState = portStates.put(port, newState);
            if (oldState != null && oldState != newState) {
                publisher.publishEvent(new RdmaPortStateChangedEvent(device, port.port(), oldState, newState));
            }
        }
    }

    /**
     * What a port went to when it left ACTIVE: the state it reports now, unless it is back up
     * already (a flap faster than the event's delivery; its PORT_ACTIVE follows), when the state
     * it passed through is gone and DOWN stands for it.
     */
    private static PortState stateAfterError(DeviceContext context, int port) {
        try {
            PortState now = context.queryPort(port).state();
            return now == PortState.ACTIVE ? PortState.DOWN : now;
        } catch (VerbsException e) {
            logger.warn("Port " + port + " of " + context.deviceName() + " reported IBV_EVENT_PORT_ERR and cannot be"
                    + " queried; taken for DOWN", e);
            return PortState.DOWN;
        }
    }

    @Override
    public synchronized void stop() {
        running = false;
        listeners.forEach(DeviceContext::removeAsyncEventListener);
        listeners.clear();
    }

    /** Not stopped when the context pauses: a paused context keeps its fabric ({@link CompletionPollers#isPauseable}), and its port states current. */
    @Override
    public boolean isPauseable() {
        return false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Before the completion pollers, so that the events of the connections' startup are published. */
    @Override
    public int getPhase() {
        return CompletionPollers.PHASE - 1;
    }
}

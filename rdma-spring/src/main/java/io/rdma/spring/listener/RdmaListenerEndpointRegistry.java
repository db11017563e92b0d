package io.rdma.spring.listener;

import io.rdma.spring.naming.UnknownRdmaNameException;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ApplicationContextEvent;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * The listener containers by id, as spring-kafka's {@code KafkaListenerEndpointRegistry} holds
 * its containers: {@code registry.listenerContainer("orders").pause()}.
 *
 * <p>Containers start once the context has refreshed ({@link ContextRefreshedEvent}): after every
 * lifecycle bean, the web server and the application's own {@code SmartLifecycle} beans included,
 * has started, so no message is handled before the application is ready; messages that arrive
 * earlier wait. They stop when the context starts closing ({@link ContextClosedEvent}), before any
 * lifecycle bean stops, and the registry waits up to the shutdown timeout (Boot's
 * {@code spring.lifecycle.timeout-per-shutdown-phase}, 30 s by default) for the invocations in
 * flight to end. A stop and start of the context's lifecycle ({@code context.stop()},
 * {@code context.start()}) stops and starts them too.
 */
public final class RdmaListenerEndpointRegistry implements SmartLifecycle, ApplicationContextAware,
        ApplicationListener<ApplicationContextEvent> {

    private static final Log logger = LogFactory.getLog(RdmaListenerEndpointRegistry.class);

    private final Map<String, RdmaListenerContainer> containers = new ConcurrentHashMap<>();
    private volatile Duration shutdownTimeout = Duration.ofSeconds(30);
    private @Nullable ApplicationContext context;
    private volatile boolean refreshed;
    private volatile boolean running;

    @Override
    public void setApplicationContext(ApplicationContext applicationContext) {
        this.context = applicationContext;
    }

    /** How long a closing context waits for the listeners' invocations in flight. */
    public void setShutdownTimeout(Duration timeout) {
        this.shutdownTimeout = timeout;
    }

    /** The container of listener {@code id}, or null. */
    public @Nullable RdmaListenerContainer getListenerContainer(String id) {
        return containers.get(id);
    }

    /**
     * The container of listener {@code id}.
     *
     * @throws UnknownRdmaNameException naming the nearest id and every id, when none is {@code id}
     */
    public RdmaListenerContainer listenerContainer(String id) {
        RdmaListenerContainer container = containers.get(id);
        if (container == null) {
            throw new UnknownRdmaNameException("listener container id", id,
                    "RdmaListenerEndpointRegistry.listenerContainer(id)", containers.keySet(),
                    "@RdmaListener(id) on the application's beans (unset: <bean class>.<method>)");
        }
        return container;
    }

    public Set<String> getListenerContainerIds() {
        return Set.copyOf(containers.keySet());
    }

    public Collection<RdmaListenerContainer> getListenerContainers() {
        return List.copyOf(containers.values());
    }

    /**
     * Adds a container; started at once if the context has already refreshed and it starts automatically.
     *
     * @throws IllegalStateException when another container has its id
     */
    void register(RdmaListenerContainer container) {
        RdmaListenerContainer other = containers.putIfAbsent(container.id(), container);
        if (other != null) {
            throw new IllegalStateException("two @RdmaListener methods have id '" + container.id() + "': " + other
                    + " and " + container + "; give each its own id");
        }
        if (refreshed && running && container.isAutoStartup()) {
            container.start();
        }
    }

    @Override
    public void onApplicationEvent(ApplicationContextEvent event) {
        if (event.getApplicationContext() != context) {
            return;
        }
        if (event instanceof ContextRefreshedEvent) {
            refreshed = true;
            startContainers();
        } else if (event instanceof ContextClosedEvent) {
            stopContainers();
        }
    }

    @Override
    public void start() {
        running = true;
        if (refreshed) {
            startContainers();
        }
    }

    @Override
    public void stop() {
        running = false;
        stopContainers();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** The last phase: started after, and stopped before, every bean of an earlier phase. */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE;
    }

    private void startContainers() {
        containers.values().stream().filter(RdmaListenerContainer::isAutoStartup).forEach(RdmaListenerContainer::start);
    }

    /** Stops every running container, waiting up to the shutdown timeout for their invocations in flight. */
    private void stopContainers() {
        List<RdmaListenerContainer> stopping = containers.values().stream().filter(RdmaListenerContainer::isRunning)
                .toList();
        CountDownLatch drained = new CountDownLatch(stopping.size());
        stopping.forEach(container -> container.stop(drained::countDown));
        try {
            if (!drained.await(shutdownTimeout.toNanos(), TimeUnit.NANOSECONDS)) {
                logger.warn("RDMA listener invocations were still in flight after " + shutdownTimeout
                        + " (the shutdown timeout); the application stops anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The context is closing for good: every container gives back what waits and ends its workers. */
    void closeContainers() {
        containers.values().forEach(RdmaListenerContainer::close);
    }
}

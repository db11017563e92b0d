package io.rdma.spring.connection;

import io.rdma.spring.channel.ChannelState;
import io.rdma.spring.channel.RdmaChannel;
import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.completion.CompletionPollers;
import io.rdma.spring.completion.CompletionRouter;
import io.rdma.spring.naming.UnknownRdmaNameException;
import io.rdma.spring.resource.ConnectionPlan;
import io.rdma.spring.resource.ConnectionPlan.ListenerPlan;
import io.rdma.spring.resource.ConnectionPlan.OutboundPlan;
import io.rdma.spring.resource.ConnectionPlan.ServicePlan;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.ConnectionManager;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.VerbsException;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

/**
 * Brings up the connections declared under {@code rdma.connections} through each device's
 * {@link ConnectionManager} (rdma_cm on the native provider, the fabric's own in the simulated
 * one) once the completion pollers run: listeners listen and accept peers, outbound
 * connections connect (a failure after the retries fails the start), and a queue pair that
 * fails ({@code IBV_EVENT_QP_FATAL}, a request or access error, or a completion with an error
 * status) or whose peer disconnects ({@code RDMA_CM_EVENT_DISCONNECTED}) is connected again
 * (outbound) or let go (accepted).
 *
 * <p>It owns what the connection manager creates, and the queue pairs created from prototypes
 * for accepted peers: at stop they are closed in libibverbs' destroy order (listeners first,
 * then connections, their QPs flushed and the flush delivered, then the prototype QPs) before
 * any declared resource is destroyed.
 *
 * <p>Every queue pair a connection brings up is a channel of {@link RdmaChannels}: a declared
 * queue pair's channel goes up and down with its connection; one made from a prototype for a peer
 * or an instance is opened as a channel, and closed before the queue pair is. Every state change
 * of a connection or of a listener's peer is also published as an
 * {@link RdmaConnectionStateChangedEvent}.
 */
public final class RdmaConnections implements SmartLifecycle, DisposableBean {

    private static final Log logger = LogFactory.getLog(RdmaConnections.class);
    private static final Duration THREADS_END_WITHIN = Duration.ofSeconds(10);

    /**
     * A listener's state for health and the actuator; {@code boundAddress} shows the chosen port
     * ({@code null} while it does not listen), {@code lastFailure} the last failure with a peer
     * (for example no queue pair could be created for it), or {@code null} when there was none.
     */
    public record ListenerStatus(String name, String property, @Nullable String boundAddress, int backlog,
                                 String queuePair, List<PeerStatus> peers, @Nullable String lastFailure) {
    }

    /**
     * A peer a listener accepted, on queue pair {@code name} ({@code <listener>#<n>} for prototype QPs),
     * with the reliability settings its queue pair has (null unless it is an rc queue pair in RTS).
     */
    public record PeerStatus(String name, String remoteAddress, int qpNumber, String qpState,
                             @Nullable ConnectionReliability reliability) {
    }

    /**
     * An outbound connection's state; {@code lastFailure} is the last attempt's error while not UP,
     * {@code reliability} the settings its queue pair has while connected (null otherwise, and for uc).
     */
    public record OutboundStatus(String name, String property, String queuePair, String host, int port,
                                 ConnectionState state, int attempts, @Nullable String lastFailure,
                                 @Nullable ConnectionReliability reliability) {
    }

    /**
     * A connection to a discovered service: how many instances advertising {@code listener} the
     * discovery client knows, the connection to each instance that has one ({@code instances}, at
     * most max-instances, or the chosen one for a connection to one instance at a time), and why
     * not every instance it should connect is connected ({@code lastFailure}: the discovery client
     * or the instance chooser failed, max-instances is reached, no queue pair could be made), or
     * null.
     */
    public record ServiceStatus(String name, String property, String service, String listener, int known,
                                List<OutboundStatus> instances, @Nullable String lastFailure) {

        public long connected() {
            return instances.stream().filter(instance -> instance.state() == ConnectionState.UP).count();
        }
    }

    private final RdmaResources resources;
    private final RdmaChannels channels;
    private final ConnectionThreads threads = new ConnectionThreads();
    private final ConnectionQueuePairs queuePairs;
    private final ConnectionStateEvents events;
    private final ServiceRefresher refresher = new ServiceRefresher();
    private final Map<String, AcceptingListener> listeners = new LinkedHashMap<>();
    private final Map<String, OutboundConnection> outbound = new LinkedHashMap<>();
    private final Map<String, ServiceConnection> services = new LinkedHashMap<>();
    private final @Nullable RdmaServiceDiscovery discovery;
    private final RdmaInstanceChooser chooser;
    /** The devices whose async events {@link #queuePairs} listens to. */
    private final List<DeviceContext> eventSources = new ArrayList<>();
    private boolean closed;

    /**
     * {@code discovery} finds the instances of the services that outbound connections name; null
     * when there is none, and then declaring such a connection fails the start. {@code chooser}
     * picks the instance a connection to one instance at a time (on a declared queue pair)
     * connects to.
     */
    public RdmaConnections(RdmaResources resources, CompletionRouter router, CompletionPollers pollers,
                           RdmaChannels channels, ApplicationEventPublisher events,
                           @Nullable RdmaServiceDiscovery discovery, RdmaInstanceChooser chooser) {
        this.resources = resources;
        this.channels = channels;
        this.queuePairs = new ConnectionQueuePairs(resources, router, pollers, channels);
        this.events = new ConnectionStateEvents(events);
        this.discovery = discovery;
        this.chooser = chooser;
    }

    /** The address listener {@code name} is bound to, with the port chosen for port 0; empty until it listens. */
    public Optional<InetSocketAddress> boundAddress(String name) {
        AcceptingListener listener = listeners.get(name);
        return listener == null ? Optional.empty() : listener.boundAddress();
    }

    public List<ListenerStatus> listeners() {
        return listeners.values().stream().map(AcceptingListener::status).toList();
    }

    public List<OutboundStatus> outbound() {
        return outbound.values().stream().map(OutboundConnection::status).toList();
    }

    public List<ServiceStatus> services() {
        return services.values().stream().map(ServiceConnection::status).toList();
    }

    /**
     * The connected instances of the outbound connection {@code name} to a discovered service, as
     * one addressee: the queue pair of each connected instance, or, for a connection to one
     * instance at a time, its declared queue pair while it is connected.
     *
     * @throws UnknownRdmaNameException when no outbound connection of that name names a service
     */
    public ServiceGroup group(String name) {
        List<ServicePlan> declared = resources.connections().services();
        ServicePlan plan = declared.stream().filter(service -> service.name().equals(name)).findFirst()
                .orElseThrow(() -> new UnknownRdmaNameException("service connection", name,
                        "RdmaConnections.group(connection)", declared.stream().map(ServicePlan::name).toList(),
                        "rdma.connections.outbound (with service)"));
        // the source of its channels: the declared queue pair's name, else the connection's
        String source = plan.queuePair() != null ? plan.queuePair() : name;
        return new ServiceGroup(name, plan.service(), () -> channelsOf(source, ChannelState.UP),
                () -> channelsOf(source, ChannelState.UP, ChannelState.DOWN));
    }

    /** The names of {@code source}'s channels that are in one of {@code states}, sorted. */
    private List<String> channelsOf(String source, ChannelState... states) {
        List<ChannelState> wanted = List.of(states);
        return channels.channelsOf(source).stream().filter(channel -> wanted.contains(channel.state()))
                .map(RdmaChannel::name).sorted().toList();
    }

    /**
     * Reads every discovered service's instances now, as on its refresh interval: for a
     * discovery client's heartbeat, which says that the instances may have changed.
     */
    public void refreshServices() {
        services.values().forEach(refresher::refreshSoon);
    }

    @Override
    public void start() {
        threads.start();
        ConnectionPlan plan = resources.connections();
        Map<String, ConnectionManager> managers = new LinkedHashMap<>();
        try {
            for (ListenerPlan listenerPlan : plan.listeners()) {
                ConnectionManager manager = manager(managers, listenerPlan.device(), listenerPlan.name(),
                        listenerPlan.property());
                AcceptingListener listener = new AcceptingListener(listenerPlan, manager, resources, channels,
                        threads, queuePairs, events);
                listener.listen();
                listeners.put(listenerPlan.name(), listener);
                threads.execute(listener::acceptPeers);
            }
            for (OutboundPlan connectionPlan : plan.outbound()) {
                ConnectionManager manager = manager(managers, connectionPlan.device(), connectionPlan.name(),
                        connectionPlan.property());
                QueuePair qp = declaredQueuePair(connectionPlan.queuePair());
                OutboundConnection connection = new OutboundConnection(connectionPlan, qp,
                        queuePairs.renewalOfDeclared(connectionPlan.queuePair()), manager, channels, threads,
                        queuePairs, events);
                outbound.put(connectionPlan.name(), connection);
                queuePairs.watch(qp, connection::failed);
                connection.connectAtStartup();
            }
            for (ServicePlan servicePlan : plan.services()) {
                if (discovery == null) {
                    throw new IllegalStateException(servicePlan.property() + " names service '"
                            + servicePlan.service() + "', and no RdmaServiceDiscovery finds its instances: declare an"
                            + " RdmaServiceDiscovery bean, or connect to a host instead");
                }
                ConnectionManager manager = manager(managers, servicePlan.device(), servicePlan.name(),
                        servicePlan.property());
                ServiceConnection service = serviceConnection(servicePlan, discovery, manager);
                services.put(servicePlan.name(), service);
                refresher.follow(service, servicePlan.refreshInterval());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while bringing up RDMA connections", e);
        }
    }

    /** To one instance at a time on the declared queue pair, or to every instance on queue pairs of the prototype. */
    private ServiceConnection serviceConnection(ServicePlan plan, RdmaServiceDiscovery discovery,
                                                ConnectionManager manager) {
        String prototype = plan.queuePairPrototype();
        if (prototype != null) {
            return new EveryInstanceConnection(plan, prototype, discovery, manager, resources, channels, threads,
                    queuePairs, events);
        }
        // the plan sets exactly one of queuePair and queuePairPrototype
        String queuePair = Objects.requireNonNull(plan.queuePair());
        return new ChosenInstanceConnection(plan, queuePair, declaredQueuePair(queuePair), discovery, chooser,
                refresher, manager, channels, threads, queuePairs, events);
    }

    private QueuePair declaredQueuePair(String name) {
        return resources.resource(name).map(managed -> (QueuePair) managed.resource()).orElseThrow();
    }

    private ConnectionManager manager(Map<String, ConnectionManager> managers, String device, String connection,
                                      String property) {
        ConnectionManager existing = managers.get(device);
        if (existing != null) {
            return existing;
        }
        DeviceContext context = deviceContext(device);
        try {
            ConnectionManager manager = ConnectionManager.of(context);
            managers.put(device, manager);
            context.addAsyncEventListener(queuePairs);
            eventSources.add(context);
            return manager;
        } catch (VerbsException e) {
            throw new RdmaConnectionException(connection, property, "on device '" + device + "'", 1, e);
        }
    }

    private DeviceContext deviceContext(String device) {
        return resources.resource(device).map(managed -> (DeviceContext) managed.resource()).orElseThrow();
    }

    @Override
    public void stop() {
        close();
    }

    /** Also when the start failed half-way, and so was never stopped: nothing the manager made may outlive its QP. */
    @Override
    public void destroy() {
        close();
    }

    private synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            // the connections' threads first: a read of a service under way then starts no connect
            boolean connectionThreadsEnded = threads.stop(THREADS_END_WITHIN);
            boolean refresherEnded = refresher.stop(THREADS_END_WITHIN); // stopped whether or not they ended
            if (!connectionThreadsEnded || !refresherEnded) {
                logger.warn("RDMA connection threads did not end within " + THREADS_END_WITHIN.toSeconds() + "s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        eventSources.forEach(context -> context.removeAsyncEventListener(queuePairs));
        List<Runnable> closings = new ArrayList<>();
        // in the destroy order: listeners, then connections, then the prototype QPs of accepted peers
        // (a service instance's connection is closed before its prototype QP; a declared QP stays)
        listeners.values().forEach(listener -> closings.add(listener::stopListening));
        outbound.values().forEach(connection -> closings.add(connection::close));
        services.values().forEach(service -> closings.add(service::close));
        listeners.values().forEach(listener -> closings.add(listener::close));
        for (Runnable closing : closings) {
            try {
                closing.run();
            } catch (RuntimeException e) {
                logger.warn("Closing an RDMA connection failed", e);
            }
        }
        queuePairs.clear();
    }

    /** Not stopped when the context pauses: stopping closes every connection for good, and a paused context keeps its fabric ({@link CompletionPollers#isPauseable}). */
    @Override
    public boolean isPauseable() {
        return false;
    }

    @Override
    public boolean isRunning() {
        return threads.isRunning();
    }

    /**
     * After the pollers, so a connection's first completions have a poller, and after the listener
     * processor, so the receives of a channel's listeners are posted as its connection is being
     * made; stopped before both.
     */
    @Override
    public int getPhase() {
        return CompletionPollers.PHASE + 2;
    }
}

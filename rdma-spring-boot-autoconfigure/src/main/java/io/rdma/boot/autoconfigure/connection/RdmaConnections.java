package io.rdma.boot.autoconfigure.connection;

import io.rdma.boot.autoconfigure.RdmaProperties;
import io.rdma.boot.autoconfigure.completion.CompletionPollers;
import io.rdma.boot.autoconfigure.fabric.FabricPlan;
import io.rdma.boot.autoconfigure.fabric.InvalidRdmaConfigurationException;
import io.rdma.boot.autoconfigure.fabric.RdmaFabric;
import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.AsyncEvent;
import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.ConnectOptions;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.VerbsException;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * Brings up the connections declared under {@code rdma.connections} once the pollers run:
 * listeners publish their QP, outbound connections connect theirs (with the configured timeout
 * and retries), and a QP that fails ({@code IBV_EVENT_QP_FATAL}) is connected again. On the
 * simulated fabric this goes through the {@link InJvmConnectionManager}; the native provider
 * would use rdma_cm, which the verbs API does not offer yet, so connections are refused there
 * at startup.
 */
public final class RdmaConnections implements SmartLifecycle, DisposableBean {

    private static final Log logger = LogFactory.getLog(RdmaConnections.class);

    private record Declared(String name, String property, RdmaProperties.Connection settings, QueuePair qp,
                            ConnectOptions options) {

        boolean listens() {
            return settings.getListenAddress() != null;
        }
    }

    private final InJvmConnectionManager manager;
    private final List<Declared> connections;
    private final ExecutorService reconnector = Executors.newVirtualThreadPerTaskExecutor();
    private volatile boolean running;

    public RdmaConnections(RdmaFabric fabric, RdmaProperties properties, InJvmConnectionManager manager) {
        this.manager = manager;
        List<Declared> declared = new ArrayList<>();
        properties.getConnections().forEach((name, settings) -> declared.add(declare(fabric, name, settings)));
        this.connections = List.copyOf(declared);
    }

    private static Declared declare(RdmaFabric fabric, String name, RdmaProperties.Connection settings) {
        String property = RdmaProperties.PREFIX + ".connections." + name;
        if (!fabric.verbs().providerName().equals("simulated")) {
            throw new InvalidRdmaConfigurationException(property, "connections are made through rdma_cm on provider '"
                    + fabric.verbs().providerName() + "', which this version does not support yet",
                    "Connect the queue pair yourself (QueuePair.connect with the peer's QueuePairEndpoint), or run"
                            + " on the simulated fabric.");
        }
        var qp = fabric.resource(settings.getQueuePair() == null ? "" : settings.getQueuePair())
                .filter(managed -> managed.resource() instanceof QueuePair)
                .map(managed -> (QueuePair) managed.resource())
                .orElseThrow(() -> new InvalidRdmaConfigurationException(property + ".queue-pair",
                        "there is no queue pair named '" + settings.getQueuePair() + "'",
                        "Name one of " + fabric.resources(QueuePair.class).stream().map(RdmaFabric.Named::name)
                                .toList() + "."));
        if (!qp.type().isConnected()) {
            throw new InvalidRdmaConfigurationException(property + ".queue-pair", "queue pair '"
                    + settings.getQueuePair() + "' is " + qp.type() + ", and only RC and UC queue pairs connect",
                    "Name an rc or uc queue pair; UD queue pairs address each datagram instead.");
        }
        if ((settings.getListenAddress() == null) == (settings.getHost() == null)) {
            throw new InvalidRdmaConfigurationException(property, "a connection either listens (listen-address)"
                    + " or connects (host), and this one sets " + (settings.getHost() == null ? "neither" : "both"),
                    "Set listen-address for the accepting side or host for the connecting side.");
        }
        if (settings.getPort() < 1 || settings.getPort() > 65535) {
            throw new InvalidRdmaConfigurationException(property + ".port", "port " + settings.getPort()
                    + " is not between 1 and 65535", "Set the port the listener accepts on.");
        }
        if (settings.getRetries() < 0) {
            throw new InvalidRdmaConfigurationException(property + ".retries", "the value " + settings.getRetries()
                    + " is negative", "Set 0 or more retries.");
        }
        FabricPlan.QueuePairAddress address = fabric.queuePairAddress(settings.getQueuePair());
        ConnectOptions options = ConnectOptions.defaults().withPort(address.port()).withGidIndex(address.gidIndex());
        if (qp.type() == QueuePairType.UC) {
            // UC has no RDMA read or atomics, so the QP grants what UC can do (manual §6.2.1).
            options = options.withAccessFlags(EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE));
        }
        return new Declared(name, property, settings, qp, options);
    }

    @Override
    public void start() {
        for (Declared connection : connections) {
            if (connection.listens()) {
                manager.listen(connection.settings().getListenAddress(), connection.settings().getPort(),
                        connection.qp(), connection.options());
            }
        }
        for (Declared connection : connections) {
            if (!connection.listens()) {
                connect(connection);
                DeviceContext context = connection.qp().context();
                context.addAsyncEventListener(event -> reconnectOnFailure(connection, event));
            }
        }
        running = true;
    }

    private void reconnectOnFailure(Declared connection, AsyncEvent event) {
        if (running && event.type() == AsyncEventType.QP_FATAL && event.resource() == connection.qp()) {
            logger.warn("RDMA connection '" + connection.name() + "' failed (" + event.type() + "); reconnecting");
            reconnector.execute(() -> connect(connection));
        }
    }

    /** Connects with the configured retries; the last failure fails the start (or is logged on reconnection). */
    private void connect(Declared connection) {
        RdmaProperties.Connection settings = connection.settings();
        for (int attempt = 0; ; attempt++) {
            try {
                manager.connect(settings.getHost(), settings.getPort(), connection.qp(), connection.options(),
                        settings.getTimeout());
                logger.info("RDMA connection '" + connection.name() + "' is up: queue pair '"
                        + settings.getQueuePair() + "' connected to " + settings.getHost() + ":" + settings.getPort());
                return;
            } catch (TimeoutException | VerbsException e) {
                if (attempt >= settings.getRetries()) {
                    throw new RdmaConnectionException(connection.name(), connection.property(),
                            settings.getHost() + ":" + settings.getPort(), attempt + 1, e);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            try {
                Thread.sleep(settings.getRetryInterval());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public void stop() {
        running = false;
        reconnector.shutdownNow();
        for (Declared connection : connections) {
            if (connection.listens()) {
                manager.unlisten(connection.settings().getListenAddress(), connection.settings().getPort(),
                        connection.qp());
            }
        }
    }

    /** Also when the start failed half-way, and so was never stopped: a listener must not outlive its QP. */
    @Override
    public void destroy() {
        stop();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** After the pollers, so a connection's first completions have a poller; stopped before them. */
    @Override
    public int getPhase() {
        return CompletionPollers.PHASE + 1;
    }
}

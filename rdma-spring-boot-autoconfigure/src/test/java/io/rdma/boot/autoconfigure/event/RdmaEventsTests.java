package io.rdma.boot.autoconfigure.event;

import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.boot.autoconfigure.SimulatedOnly;
import io.rdma.spring.connection.ConnectionState;
import io.rdma.spring.event.RdmaAsyncEvent;
import io.rdma.spring.connection.RdmaConnectionStateChangedEvent;
import io.rdma.spring.event.RdmaPortStateChangedEvent;
import io.rdma.spring.listener.RdmaListener;
import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.provider.simulated.FabricControl;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The Spring application events an application receives with {@code @EventListener}. */
class RdmaEventsTests {

    private static final Duration WAIT = Duration.ofSeconds(10);

    /** Simulated only: the port goes down and comes back by fault injection. */
    @Test
    @SimulatedOnly
    void aPortThatGoesDownAndComesBackIsPublishedWithItsAsyncEvents() {
        RdmaContextRunners.simulatedRunner("full").withBean(Recorder.class).run(context -> {
            Recorder recorder = context.getBean(Recorder.class);
            FabricControl fabric = context.getBean(Verbs.class).extension(FabricControl.class).orElseThrow();
            String device = RdmaContextRunners.DECLARED_DEVICE;

            fabric.setPortState(device, 1, PortState.DOWN);
            await().atMost(WAIT).until(() -> recorder.portChanges.size() == 1);
            assertThat(recorder.portChanges).containsExactly(
                    new RdmaPortStateChangedEvent(device, 1, PortState.ACTIVE, PortState.DOWN));
            assertThat(recorder.asyncEvents).contains(new RdmaAsyncEvent(AsyncEventType.PORT_ERR, device, 1, null, null));

            fabric.setPortState(device, 1, PortState.ACTIVE);
            await().atMost(WAIT).until(() -> recorder.portChanges.size() == 2);
            assertThat(recorder.portChanges.get(1))
                    .isEqualTo(new RdmaPortStateChangedEvent(device, 1, PortState.DOWN, PortState.ACTIVE));
            assertThat(recorder.asyncEvents).contains(
                    new RdmaAsyncEvent(AsyncEventType.PORT_ACTIVE, device, 1, null, null));
        });
    }

    /**
     * On the device under test: the outbound connection and the listener's peer coming up at
     * startup are published, each with its name, queue pair and peer.
     */
    @Test
    void connectionsComingUpArePublished() {
        RdmaContextRunners.runner("connected").withBean(Recorder.class).withBean(Server.class).run(context -> {
            assertThat(context).hasNotFailed();
            Recorder recorder = context.getBean(Recorder.class);
            await().atMost(WAIT).until(() -> recorder.connectionChanges.size() >= 2);
            assertThat(recorder.connectionChanges).contains(
                    new RdmaConnectionStateChangedEvent("echo-client", "client",
                            RdmaContextRunners.PEER_ADDRESS + ":7471", ConnectionState.CONNECTING,
                            ConnectionState.UP));
            assertThat(recorder.connectionChanges).filteredOn(change -> change.name().equals("echo")).singleElement()
                    .satisfies(peer -> {
                        assertThat(peer.queuePair()).isEqualTo("echo#1");
                        assertThat(peer.oldState()).isEqualTo(ConnectionState.DOWN);
                        assertThat(peer.newState()).isEqualTo(ConnectionState.UP);
                    });
        });
    }

    /**
     * Simulated only: the client's queue pair fails by fault injection. Its QP_FATAL comes with
     * the name the configuration gives the queue pair, and the connection's recovery is published
     * as it happens: the connection goes CONNECTING and UP again, the listener lets the old peer go
     * and accepts the new one.
     */
    @Test
    @SimulatedOnly
    void aFailedQueuePairIsPublishedWithItsDeclaredNameAndTheConnectionsRecovery() {
        RdmaContextRunners.simulatedRunner("connected").withBean(Recorder.class).withBean(Server.class).run(context -> {
            assertThat(context).hasNotFailed();
            Recorder recorder = context.getBean(Recorder.class);
            await().atMost(WAIT).until(() -> recorder.connectionChanges.size() >= 2);
            QueuePair client = context.getBean("client", QueuePair.class);

            context.getBean(Verbs.class).extension(FabricControl.class).orElseThrow()
                    .failQueuePair(RdmaContextRunners.DECLARED_DEVICE, client.qpNumber());

            await().atMost(WAIT).until(() -> recorder.asyncEvents.contains(new RdmaAsyncEvent(AsyncEventType.QP_FATAL,
                    RdmaContextRunners.DECLARED_DEVICE, 0, "client", ResourceKind.QUEUE_PAIR)));
            await().atMost(WAIT).until(() -> recorder.connectionChanges.size() >= 6);
            assertThat(recorder.connectionChanges).filteredOn(change -> change.name().equals("echo-client"))
                    .extracting(RdmaConnectionStateChangedEvent::newState)
                    .containsExactly(ConnectionState.UP, ConnectionState.CONNECTING, ConnectionState.UP);
            // the reconnection may be accepted (up to max-connections) before the old peer is let go
            assertThat(recorder.connectionChanges).filteredOn(change -> change.name().equals("echo"))
                    .extracting(change -> change.queuePair() + " " + change.oldState() + " -> " + change.newState())
                    .containsExactlyInAnyOrder("echo#1 DOWN -> UP", "echo#1 UP -> DOWN", "echo#2 DOWN -> UP");
            assertThat(recorder.connectionChanges).filteredOn(change -> change.queuePair().equals("echo#1"))
                    .extracting(RdmaConnectionStateChangedEvent::newState)
                    .containsExactly(ConnectionState.UP, ConnectionState.DOWN);
        });
    }

    /** What an application would write: plain {@code @EventListener} methods. */
    static final class Recorder {

        final List<RdmaAsyncEvent> asyncEvents = new CopyOnWriteArrayList<>();
        final List<RdmaPortStateChangedEvent> portChanges = new CopyOnWriteArrayList<>();
        final List<RdmaConnectionStateChangedEvent> connectionChanges = new CopyOnWriteArrayList<>();

        @EventListener
        void on(RdmaAsyncEvent event) {
            asyncEvents.add(event);
        }

        @EventListener
        void on(RdmaPortStateChangedEvent event) {
            portChanges.add(event);
        }

        @EventListener
        void on(RdmaConnectionStateChangedEvent event) {
            connectionChanges.add(event);
        }
    }

    /** The listener's side: it receives, so that its peers' receive queues are filled. */
    static final class Server {

        @RdmaListener(connectionListener = "echo")
        void receive(byte[] request) {
        }
    }
}

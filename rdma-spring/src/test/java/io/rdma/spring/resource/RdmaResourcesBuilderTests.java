package io.rdma.spring.resource;

import io.rdma.spring.SimulatedLoopback;
import io.rdma.spring.naming.UnknownRdmaNameException;
import io.rdma.spring.resource.ConnectionPlan.OutboundPlan;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReliabilitySettings;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Resources declared in code ({@link RdmaResources#builder}): what the programming model reads of
 * them, and the declarations it refuses before anything runs on them.
 */
class RdmaResourcesBuilderTests {

    private static final CompletionPolling EVENT = new CompletionPolling(CompletionMode.EVENT, Duration.ZERO, 16);

    private final SimulatedLoopback loopback = new SimulatedLoopback();

    @AfterEach
    void close() {
        loopback.close();
    }

    @Test
    void theDeclaredResourcesAreFoundByNameWithWhatTheirDeclarationSays() {
        RdmaResources resources = loopback.resources();

        assertThat(resources.resources(QueuePair.class)).extracting(RdmaResources.Named::name)
                .containsExactly(SimulatedLoopback.CLIENT, SimulatedLoopback.SERVER);
        assertThat(resources.resources(CompletionQueue.class)).extracting(RdmaResources.Named::resource)
                .containsExactly(loopback.completionQueue());
        assertThat(resources.resource("client-buffers")).get().extracting(RdmaResources.ManagedResource::resource)
                .isSameAs(loopback.clientBuffers());
        assertThat(resources.queuePairAddress(SimulatedLoopback.CLIENT)).isEqualTo(new QueuePairAddress(1, "client-buffers"));
        assertThat(resources.sendTimeout(SimulatedLoopback.SERVER).limit()).isEqualTo(Duration.ofSeconds(5));
        assertThat(resources.sendTimeout(SimulatedLoopback.SERVER).property())
                .isEqualTo("the send timeout of RdmaResources.builder(verbs).queuePair(\"server\", ...)");
        assertThat(resources.completionPolling("cq0")).isEqualTo(EVENT);
        assertThat(resources.configuredPorts("sim0")).containsExactly(1);
        assertThat(resources.drainTimeout()).isEqualTo(Duration.ofMillis(200));
        assertThat(resources.declarationOf(loopback.server())).get()
                .extracting(managed -> managed.declaration().device()).isEqualTo("sim0");
        assertThat(resources.connections().outbound()).isEmpty();
        assertThat(resources.isRenewable(SimulatedLoopback.CLIENT))
                .as("the application made it: a reconnection resets it instead").isFalse();
    }

    @Test
    void aQueuePairNamingAnUndeclaredPoolIsRefusedWithTheNearestName() {
        assertThatThrownBy(() -> withDeviceAndQueue().memoryPool("buffers", loopback.clientBuffers())
                .queuePair("rpc", loopback.client(), "bufers", Duration.ofSeconds(1)).build())
                .isInstanceOf(UnknownRdmaNameException.class)
                .hasMessageContaining("RdmaResources.builder(verbs).queuePair(\"rpc\", ...) names memory pool 'bufers'")
                .hasMessageContaining("Did you mean 'buffers'?");
    }

    @Test
    void aQueuePairWhoseCompletionQueueIsNotDeclaredIsRefused() {
        CompletionQueue undeclared = loopback.device().createCompletionQueue(16);
        QueuePair qp = loopback.protectionDomain().createQueuePair(QueuePairOptions.of(QueuePairType.RC,
                loopback.completionQueue(), QueuePairCapabilities.of(4, 4))
                .withCompletionQueues(loopback.completionQueue(), undeclared));

        assertThatIllegalArgumentException().isThrownBy(() -> withDeviceAndQueue()
                        .queuePair("rpc", qp, null, Duration.ofSeconds(1)).build())
                .withMessageContaining("queue pair 'rpc', whose receive completion queue it does not declare");
    }

    @Test
    void aResourceOnAnUndeclaredDeviceIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> RdmaResources.builder(loopback.verbs())
                        .completionQueue("cq0", loopback.completionQueue(), EVENT).build())
                .withMessageContaining("declares 'cq0', made on device " + loopback.device().deviceName()
                        + ", which it does not declare");
    }

    @Test
    void aNameIsDeclaredOnce() {
        assertThatIllegalArgumentException().isThrownBy(() -> withDeviceAndQueue()
                        .memoryPool("cq0", loopback.clientBuffers()))
                .withMessageContaining("declares 'cq0' twice");
    }

    @Test
    void aConnectionNamingAnUndeclaredQueuePairIsRefused() {
        OutboundPlan toServer = new OutboundPlan("to-server", "RdmaResources.builder(verbs).connections(plan)",
                "sim0", "clent", "192.0.2.1", 7471, Duration.ofSeconds(1), 0, Duration.ofMillis(10), 2.0,
                Duration.ofSeconds(1), ReliabilitySettings.deviceDefaults());

        assertThatThrownBy(() -> withDeviceAndQueue().memoryPool("buffers", loopback.clientBuffers())
                .queuePair("client", loopback.client(), "buffers", Duration.ofSeconds(1))
                .connections(new ConnectionPlan(List.of(), List.of(toServer), List.of())).build())
                .isInstanceOf(UnknownRdmaNameException.class)
                .hasMessageContaining("connection 'to-server' names queue pair 'clent'")
                .hasMessageContaining("Did you mean 'client'?");
    }

    private RdmaResourcesBuilder withDeviceAndQueue() {
        return RdmaResources.builder(loopback.verbs()).device("sim0", loopback.device(), 1)
                .completionQueue("cq0", loopback.completionQueue(), EVENT);
    }
}

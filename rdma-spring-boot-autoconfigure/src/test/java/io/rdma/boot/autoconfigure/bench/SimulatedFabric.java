package io.rdma.boot.autoconfigure.bench;

import io.rdma.boot.autoconfigure.RdmaAutoConfiguration;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The application the template benchmarks run: on the simulated fabric, a declared queue pair
 * {@code client} connected through the connection manager to the peer that the connection
 * listener {@code sink} accepts, both on completion queue {@code cq0} (whose poller takes the
 * client's and the peer's completions), with room for {@value #WINDOW} messages in flight each
 * way, and the benchmark's {@code @RdmaListener} class listening on {@code sink}.
 */
final class SimulatedFabric {

    /** Messages one way in flight at most: below either end's send and receive queues. */
    static final int WINDOW = 128;
    static final String CQ = "rdma.devices.sim0.completion-queues.cq0";

    private static final String PD = "rdma.devices.sim0.protection-domains.pd0";

    private SimulatedFabric() {
    }

    /** Starts the application with {@code listener}; {@code properties} add to or override the fabric's. */
    static ConfigurableApplicationContext start(Class<?> listener, String... properties) {
        List<String> all = new ArrayList<>(List.of(
                "rdma.provider=simulated",
                CQ + ".entries=4096",
                CQ + ".mode=adaptive",
                PD + ".memory-pools.buffers.buffer-size=256",
                PD + ".memory-pools.buffers.count=2048",
                PD + ".queue-pairs.client.max-send-wr=" + 4 * WINDOW,
                PD + ".queue-pairs.client.max-recv-wr=" + 2 * WINDOW,
                PD + ".queue-pair-prototypes.peer.max-send-wr=" + 2 * WINDOW,
                PD + ".queue-pair-prototypes.peer.max-recv-wr=" + 4 * WINDOW,
                "rdma.connections.listeners.sink.address=0.0.0.0",
                "rdma.connections.listeners.sink.port=7491",
                "rdma.connections.listeners.sink.queue-pair-prototype=peer",
                "rdma.connections.listeners.sink.max-connections=1",
                "rdma.connections.outbound.client.queue-pair=client",
                "rdma.connections.outbound.client.host=127.0.0.1",
                "rdma.connections.outbound.client.port=7491"));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(Fabric.class, listener).web(WebApplicationType.NONE)
                .properties(all.toArray(String[]::new))
                .run();
    }

    @ImportAutoConfiguration(RdmaAutoConfiguration.class)
    static class Fabric {
    }
}

package io.rdma.boot.test;

import io.rdma.boot.autoconfigure.health.RdmaHealthIndicator;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.provider.simulated.FabricControl;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** A user's test as the annotation is meant for: a whole application on the simulated fabric, with faults injected. */
@SpringBootTest(properties = "rdma.devices.hca0.completion-queues.cq.entries=16")
@SimulatedRdma
class SimulatedRdmaTests {

    @Autowired
    Verbs verbs;

    @Autowired
    FabricControl fabric;

    @Autowired
    RdmaHealthIndicator health;

    @Test
    void runsOnTheSimulatedFabricWithFaultInjection() {
        assertThat(verbs.providerName()).isEqualTo("simulated");
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        fabric.setPortState("hca0", 1, PortState.DOWN);
        assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
        fabric.setPortState("hca0", 1, PortState.ACTIVE);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {
    }
}

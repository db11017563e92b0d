package io.rdma.boot.autoconfigure.health;

import io.rdma.boot.autoconfigure.FabricRunner;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.Verbs;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;

class RdmaHealthIndicatorTests {

    @Test
    void upWhileConfiguredPortsAreActiveAndDownWhenOneIsNot() {
        FabricRunner.runner("full")
                .withConfiguration(AutoConfigurations.of(RdmaHealthContributorAutoConfiguration.class))
                .run(context -> {
                    RdmaHealthIndicator health = context.getBean(RdmaHealthIndicator.class);
                    assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                    context.getBean(Verbs.class).control().orElseThrow().setPortState("sim0", 1, PortState.DOWN);
                    assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
                    assertThat(health.health().getDetails()).containsKey("devices");
                    assertThat(health.health().getDetails().get("devices").toString()).contains("port 1=DOWN");
                });
    }

    @Test
    void canBeDisabled() {
        FabricRunner.runner("full")
                .withConfiguration(AutoConfigurations.of(RdmaHealthContributorAutoConfiguration.class))
                .withPropertyValues("management.health.rdma.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(RdmaHealthIndicator.class));
    }
}

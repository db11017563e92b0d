package io.rdma.boot.autoconfigure.health;

import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.boot.autoconfigure.SimulatedOnly;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.provider.simulated.FabricControl;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;

class RdmaHealthIndicatorTests {

    private static final AutoConfigurations HEALTH = AutoConfigurations.of(RdmaHealthContributorAutoConfiguration.class);

    @Test
    void upWhileConfiguredPortsAreActive() {
        RdmaContextRunners.runner("full").withConfiguration(HEALTH).run(context -> {
            RdmaHealthIndicator health = context.getBean(RdmaHealthIndicator.class);
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
            assertThat(health.health().getDetails().get("devices").toString()).contains("port 1=ACTIVE");
        });
    }

    /** Simulated only: the port goes down by fault injection. */
    @Test
    @SimulatedOnly
    void downWhenAConfiguredPortIsNotActive() {
        RdmaContextRunners.simulatedRunner("full").withConfiguration(HEALTH).run(context -> {
            RdmaHealthIndicator health = context.getBean(RdmaHealthIndicator.class);
            context.getBean(Verbs.class).extension(FabricControl.class).orElseThrow()
                    .setPortState(RdmaContextRunners.DECLARED_DEVICE, 1, PortState.DOWN);
            assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.health().getDetails().get("devices").toString()).contains("port 1=DOWN");
        });
    }

    @Test
    void canBeDisabled() {
        RdmaContextRunners.runner("full").withConfiguration(HEALTH)
                .withPropertyValues("management.health.rdma.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(RdmaHealthIndicator.class));
    }
}

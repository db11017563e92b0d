package io.rdma.boot.autoconfigure.health;

import io.rdma.boot.autoconfigure.IwarpLack;
import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.boot.autoconfigure.SimulatedOnly;
import io.rdma.spring.connection.ConnectionReliability;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.provider.simulated.FabricControl;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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

    /** Each connected rc queue pair's settings, as declared: retry count 2 and ACK timeout 10 ≈ 4.2 ms per try. */
    @Test
    void detailsShowTheReliabilitySettingsOfEachConnection() {
        RdmaContextRunners.assumeInfinibandTransport(IwarpLack.RELIABILITY_SETTINGS);
        RdmaContextRunners.runner("connected").withConfiguration(HEALTH)
                .withPropertyValues(RdmaContextRunners.DEVICE_PROPERTY + ".queue-pair-defaults.reliability.ack-timeout=10",
                        RdmaContextRunners.DEVICE_PROPERTY + ".queue-pair-defaults.reliability.retry-count=2")
                .run(context -> {
                    RdmaHealthIndicator health = context.getBean(RdmaHealthIndicator.class);
                    await().atMost(Duration.ofSeconds(5)).until(() -> reliability(health).containsKey("echo#1"));
                    assertThat(reliability(health)).containsOnlyKeys("echo-client", "echo#1").allSatisfy((name, effective) -> {
                        assertThat(effective.ackTimeout()).isEqualTo(10);
                        assertThat(effective.retryCount()).isEqualTo(2);
                        assertThat(effective.failureDetectionMillis()).isCloseTo(3 * 4.194304, within(1e-6));
                    });
                });
    }

    @SuppressWarnings("unchecked")
    private static Map<String, ConnectionReliability> reliability(RdmaHealthIndicator health) {
        return (Map<String, ConnectionReliability>) health.health(true).getDetails().get("reliability");
    }

    @Test
    void detailsNameTheProviderAndWhyItServes() {
        RdmaContextRunners.runner("full").withConfiguration(HEALTH).run(context -> {
            Verbs verbs = context.getBean(Verbs.class);
            Map<String, Object> details = context.getBean(RdmaHealthIndicator.class).health().getDetails();
            assertThat(details).containsEntry("provider", verbs.providerName())
                    .containsEntry("selectionReason", verbs.selectionReason());
        });
    }

    /**
     * Where the native provider cannot serve, provider auto falls back, says so at WARN, and health
     * shows why. Simulated only: on a host with a device (rxe0) auto serves natively and nothing falls back.
     */
    @Test
    @SimulatedOnly
    @ExtendWith(OutputCaptureExtension.class)
    void anAutoFallbackIsWarnedOfAndShownInHealth(CapturedOutput output) {
        RdmaContextRunners.simulatedRunner("full").withConfiguration(HEALTH).withPropertyValues("rdma.provider=auto")
                .run(context -> {
                    assumeTrue(context.getBean(Verbs.class).fellBackToSimulated(),
                            "the native provider serves here, so auto does not fall back");
                    Map<String, Object> details = context.getBean(RdmaHealthIndicator.class).health().getDetails();
                    assertThat(details).containsEntry("provider", "simulated");
                    assertThat((String) details.get("selectionReason"))
                            .startsWith("auto: simulated fabric selected because the native provider is unusable: ");
                    assertThat(output.getAll().lines().filter(line -> line.contains("RDMA provider 'auto' fell back")))
                            .singleElement().asString().contains("WARN").contains("rdma.provider=native");
                });
    }

    @Test
    void canBeDisabled() {
        RdmaContextRunners.runner("full").withConfiguration(HEALTH)
                .withPropertyValues("management.health.rdma.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(RdmaHealthIndicator.class));
    }
}

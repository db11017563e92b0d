package io.rdma.boot.autoconfigure;

import io.rdma.boot.autoconfigure.resource.InvalidRdmaConfigurationException;
import io.rdma.verbs.api.QueuePair;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs {@link DeclaredResourceBeansTests} as an application compiled ahead of time starts
 * (process-aot, then {@code -Dspring.aot.enabled=true}), and what differs there: the properties at
 * start may not be the build's.
 */
@CompileWithForkedClassLoader
// Simulated only: AOT processing and compiling its output do not depend on the provider, and under the
// emulated rxe0 guest they took most of the auto-configuration step's 24 minutes.
@SimulatedOnly
class RdmaAutoConfigurationAotTests extends DeclaredResourceBeansTests {

    @Override
    ContextStart start() {
        return ContextStart.AHEAD_OF_TIME;
    }

    @Test
    void theResourcesAreTheOnesTheStartDeclaresNotTheBuild() {
        String queuePair = RdmaContextRunners.DEVICE_PROPERTY + ".protection-domains.pd0.queue-pairs.late.";
        start().run(RdmaContextRunners.runner("full"), context -> withStartProperties(context, Map.of(
                queuePair + "type", "rc", queuePair + "send-cq", "cq0",
                queuePair + "max-send-wr", "8", queuePair + "max-recv-wr", "8")), context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBeansOfType(QueuePair.class)).containsOnlyKeys("rpc", "shared", "late");
            assertThat(context.getBeanFactory().getDependenciesForBean("late")).contains("pd0", "cq0");
        });
    }

    @Test
    void disablingAtStartWhatTheBuildEnabledFailsTheStartNamingTheProperty() {
        start().run(RdmaContextRunners.runner("full"),
                context -> withStartProperties(context, Map.of("rdma.enabled", "false")), context -> {
            assertThat(context).hasFailed();
            InvalidRdmaConfigurationException failure = RdmaContextRunners.cause(context.getStartupFailure(),
                    InvalidRdmaConfigurationException.class);
            assertThat(failure.property()).isEqualTo("rdma.enabled");
            assertThat(failure).hasMessageContaining("ahead of time");
            assertThat(failure.action()).contains("process-aot");
        });
    }

    private static void withStartProperties(GenericApplicationContext context, Map<String, Object> properties) {
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("start", properties));
    }
}

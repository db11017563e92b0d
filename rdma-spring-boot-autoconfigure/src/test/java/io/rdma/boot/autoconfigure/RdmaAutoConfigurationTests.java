package io.rdma.boot.autoconfigure;

import io.rdma.spring.completion.CompletionPollers;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.Verbs;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs {@link DeclaredResourceBeansTests} as {@code ApplicationContextRunner} starts contexts, and the rest of the auto-configuration's startup. */
class RdmaAutoConfigurationTests extends DeclaredResourceBeansTests {

    @Override
    ContextStart start() {
        return ContextStart.REGULAR;
    }

    @Test
    void completionPollersRunOnePlatformThreadPerQueueNamedAfterIt() {
        RdmaContextRunners.runner("full").run(context -> {
            CompletionPollers pollers = context.getBean(CompletionPollers.class);
            assertThat(pollers.isRunning()).isTrue();
            assertThat(pollers.pollers()).extracting(poller -> poller.name()).containsExactly("cq0", "cq1");
            assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                    .contains("rdma-cq-cq0", "rdma-cq-cq1");
        });
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                .doesNotContain("rdma-cq-cq0", "rdma-cq-cq1");
    }

    @Test
    void disabledLeavesTheApplicationWithoutRdmaBeans() {
        RdmaContextRunners.runner("full").withPropertyValues("rdma.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(Verbs.class).doesNotHaveBean(QueuePair.class)
                    .doesNotHaveBean(CompletionPollers.class);
        });
    }

    /** Simulated only: it is about a machine without RDMA hardware. */
    @Test
    @SimulatedOnly
    void autoRunsTheConfiguredDeviceNamesOnTheSimulatedFabricWithoutHardware() {
        RdmaContextRunners.simulatedRunner().withPropertyValues("rdma.provider=auto",
                "rdma.devices.mlx5-0.completion-queues.cq.entries=64",
                "rdma.devices.mlx5-0.protection-domains.pd.queue-pairs.qp.max-send-wr=16",
                "rdma.devices.mlx5-0.protection-domains.pd.queue-pairs.qp.max-recv-wr=16").run(context -> {
            assertThat(context).hasNotFailed();
            Verbs verbs = context.getBean(Verbs.class);
            assertThat(verbs.providerName()).isEqualTo("simulated");
            assertThat(verbs.selectionReason()).contains("simulated");
            assertThat(context.getBean("mlx5-0", DeviceContext.class).deviceName()).isEqualTo("mlx5-0");
        });
    }

    /** Simulated only: it describes the device (rdma.simulated.devices). */
    @Test
    @SimulatedOnly
    void simulatedDevicesTakeTheirDescribedPortsAndLimits() {
        RdmaContextRunners.simulatedRunner().withPropertyValues("rdma.simulated.devices.sim0.ports=2",
                "rdma.simulated.devices.sim0.max-cqe=128", "rdma.devices.sim0.port=2").run(context -> {
            assertThat(context).hasNotFailed();
            DeviceContext device = context.getBean("sim0", DeviceContext.class);
            assertThat(device.queryDevice().physicalPortCount()).isEqualTo(2);
            assertThat(device.queryDevice().maxCqe()).isEqualTo(128);
        });
    }
}

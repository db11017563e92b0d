package io.rdma.boot.autoconfigure.metrics;

import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.verbs.api.CompletionCounter;
import io.rdma.verbs.api.DeviceAttributes;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

class RdmaMetricsTests {

    private static final AutoConfigurations METRICS = AutoConfigurations.of(RdmaMetricsAutoConfiguration.class);

    @Test
    void bindsCountersThatAreReadOnScrape() {
        RdmaContextRunners.runner("full").withConfiguration(METRICS).run(context -> {
            MeterRegistry registry = bind(context);
            assertThat(registry.find("rdma.cq.completions").tags("cq", "cq0", "status", "success")
                    .functionCounter()).isNotNull();
            assertThat(registry.find("rdma.port.counter").tags("device", RdmaContextRunners.DEVICE, "port", "1").meters())
                    .isNotEmpty();
            var sends = registry.find("rdma.completion.counter").tags("counter", "sends", "status", "success")
                    .functionCounter();
            assertThat(sends.count()).isZero();
            context.getBean("sends", CompletionCounter.class).incrementCompletions(5);
            assertThat(sends.count()).isEqualTo(5.0);
            // ibv_set_comp_cntr takes a u64: past 2^63 the meter stays positive
            context.getBean("sends", CompletionCounter.class).setCompletions(Long.MIN_VALUE + 5);
            assertThat(sends.count()).isEqualTo(0x1p63);
        });
    }

    @Test
    void bindsFlowCountersByFlowAndIndex() {
        RdmaContextRunners.assumeDevice(DeviceAttributes::flowCounters, "the device has no flow counters");
        RdmaContextRunners.runner("flows").withConfiguration(METRICS).run(context -> {
            MeterRegistry registry = bind(context);
            assertThat(registry.find("rdma.flow.packets").tags("flow", "ingress", "index", "0", "port", "1")
                    .functionCounter()).isNotNull();
            assertThat(registry.find("rdma.flow.bytes").tags("flow", "ingress", "index", "1")
                    .functionCounter()).isNotNull();
        });
    }

    private static MeterRegistry bind(ApplicationContext context) {
        MeterRegistry registry = new SimpleMeterRegistry();
        context.getBeansOfType(MeterBinder.class).values().forEach(binder -> binder.bindTo(registry));
        return registry;
    }
}

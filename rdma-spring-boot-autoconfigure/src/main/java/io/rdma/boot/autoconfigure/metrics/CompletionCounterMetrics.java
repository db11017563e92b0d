package io.rdma.boot.autoconfigure.metrics;

import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.CompletionCounter;
import io.rdma.verbs.api.Unsigned64;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * {@code rdma.completion.counter} per declared completion counter: its completion and error counts, read
 * on scrape. The counts are u64s, read unsigned so that a counter past 2^63 does not turn negative.
 */
public class CompletionCounterMetrics implements MeterBinder {

    private final RdmaResources resources;

    public CompletionCounterMetrics(RdmaResources resources) {
        this.resources = resources;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (RdmaResources.Named<CompletionCounter> counter : resources.resources(CompletionCounter.class)) {
            CompletionCounter resource = counter.resource();
            String device = resource.context().deviceName();
            FunctionCounter.builder("rdma.completion.counter", resource,
                            c -> c.isClosed() ? Double.NaN : Unsigned64.toDouble(c.completions()))
                    .description("Completions counted by the completion counter").baseUnit("completions")
                    .tags("device", device, "counter", counter.name(), "status", "success").register(registry);
            FunctionCounter.builder("rdma.completion.counter", resource, c -> c.isClosed() ? Double.NaN : Unsigned64.toDouble(c.errors()))
                    .description("Completions counted by the completion counter").baseUnit("completions")
                    .tags("device", device, "counter", counter.name(), "status", "error").register(registry);
        }
    }
}

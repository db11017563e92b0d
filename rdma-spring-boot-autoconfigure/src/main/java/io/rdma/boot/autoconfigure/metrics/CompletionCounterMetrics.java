package io.rdma.boot.autoconfigure.metrics;

import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.CompletionCounter;
import io.rdma.verbs.api.ResourceClosedException;
import io.rdma.verbs.api.Unsigned64;

import java.util.function.ToLongFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code rdma_comp_cntr_completions_total} and {@code rdma_comp_cntr_errors_total} per declared
 * completion counter ({@code ibv_comp_cntr}; "cntr" as libibverbs spells it, because promtool
 * rejects a metric name with {@code _counter_} in it), tagged {@code device} and {@code counter}.
 * Read on scrape: a software counter's counts are read straight from its memory, a hardware
 * counter's as the device maintains them, with no system call either way. The counts are u64s,
 * read unsigned so that a counter past 2^63 does not turn negative.
 */
public class CompletionCounterMetrics implements RdmaMeterBinder {

    private final RdmaResources resources;

    public CompletionCounterMetrics(RdmaResources resources) {
        this.resources = resources;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (RdmaResources.Named<CompletionCounter> counter : resources.resources(CompletionCounter.class)) {
            CompletionCounter resource = counter.resource();
            String device = resource.context().deviceName();
            FunctionCounter.builder("rdma.comp.cntr.completions", resource, c -> read(c, CompletionCounter::completions))
                    .description("Successful completions the completion counter counted")
                    .tags("device", device, "counter", counter.name()).register(registry);
            FunctionCounter.builder("rdma.comp.cntr.errors", resource, c -> read(c, CompletionCounter::errors))
                    .description("Completions in error the completion counter counted")
                    .tags("device", device, "counter", counter.name()).register(registry);
        }
    }

    /** NaN once the counter is closed, also when the close races this read. */
    private static double read(CompletionCounter counter, ToLongFunction<CompletionCounter> count) {
        try {
            return Unsigned64.toDouble(count.applyAsLong(counter));
        } catch (ResourceClosedException e) {
            return Double.NaN;
        }
    }
}

package io.rdma.boot.autoconfigure.metrics;

import io.rdma.spring.completion.CompletionPoller;
import io.rdma.spring.completion.CompletionPollers;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;

/** {@code rdma.cq.completions} per CQ and status, counted by its poller and read on scrape. */
public class CompletionQueueMetrics implements RdmaMeterBinder {

    private final CompletionPollers pollers;

    public CompletionQueueMetrics(CompletionPollers pollers) {
        this.pollers = pollers;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (CompletionPoller poller : pollers.pollers()) {
            String device = poller.completionQueue().context().deviceName();
            FunctionCounter.builder("rdma.cq.completions", poller, CompletionPoller::completions)
                    .description("Work completions taken from the completion queue").baseUnit("completions")
                    .tags("device", device, "cq", poller.name(), "status", "success").register(registry);
            FunctionCounter.builder("rdma.cq.completions", poller, CompletionPoller::errors)
                    .description("Work completions taken from the completion queue").baseUnit("completions")
                    .tags("device", device, "cq", poller.name(), "status", "error").register(registry);
        }
    }
}

package io.rdma.boot.autoconfigure.metrics;

import io.rdma.spring.completion.CompletionPoller;
import io.rdma.spring.completion.CompletionPollers;
import io.rdma.verbs.api.CompletionStatus;

import java.util.Locale;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code rdma_cq_completions_total{device,cq,status}} per CQ and {@code ibv_wc_status}
 * ({@code success}, {@code wr_flush_err}, {@code retry_exc_err}, ...), counted by its poller and
 * read on scrape. Every status is registered at zero when bound, a bounded 22 per CQ, so that the
 * first error of a kind shows as an increase rather than as a new series.
 */
public class CompletionQueueMetrics implements RdmaMeterBinder {

    private final CompletionPollers pollers;

    public CompletionQueueMetrics(CompletionPollers pollers) {
        this.pollers = pollers;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (CompletionPoller poller : pollers.pollers()) {
            String device = poller.completionQueue().context().deviceName();
            for (CompletionStatus status : CompletionStatus.values()) {
                FunctionCounter.builder("rdma.cq.completions", poller, counted -> counted.completions(status))
                        .description("Work completions taken from the completion queue, by ibv_wc_status")
                        .baseUnit("completions")
                        .tags("device", device, "cq", poller.name(), "status", status.name().toLowerCase(Locale.ROOT))
                        .register(registry);
            }
        }
    }
}

package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.CompletionCounterMode;
import io.rdma.verbs.api.CompletionCounterOptions;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.spi.CompCounterHandle;
import io.rdma.verbs.spi.CompletionCounterWords;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A completion counter of the simulated fabric, which sees every operation, local and remote;
 * its values live in {@link CompletionCounterWords}.
 */
final class SimulatedCompCounter implements CompCounterHandle {

    private final SimulatedContext context;
    private final CompletionCounterWords words;
    private final AtomicInteger attachments = new AtomicInteger();

    SimulatedCompCounter(SimulatedContext context, CompletionCounterOptions options) {
        this.context = context;
        this.words = CompletionCounterWords.of(options, context.device().spec().completionCounterMaxValue());
    }

    /** Counts one completed WR. */
    void count(boolean success) {
        words.count(success);
    }

    void attached() {
        attachments.incrementAndGet();
    }

    void detached() {
        attachments.decrementAndGet();
    }

    @Override
    public long completions() {
        return words.completions();
    }

    @Override
    public long errors() {
        return words.errors();
    }

    @Override
    public void setCompletions(long value) {
        words.setCompletions(value);
    }

    @Override
    public void setErrors(long value) {
        words.setErrors(value);
    }

    @Override
    public void incrementCompletions(long amount) {
        words.incrementCompletions(amount);
    }

    @Override
    public void incrementErrors(long amount) {
        words.incrementErrors(amount);
    }

    @Override
    public long maxValue() {
        return words.maxValue();
    }

    @Override
    public CompletionCounterMode mode() {
        return CompletionCounterMode.SIMULATED;
    }

    @Override
    public void destroy() {
        int attached = attachments.get();
        if (attached > 0) {
            throw Failures.busy("ibv_destroy_comp_cntr", "the counter is still attached to " + attached + " QP(s)",
                    "destroy the QPs it is attached to first; there is no detach");
        }
        context.device().release(ResourceKind.COMPLETION_COUNTER);
    }
}

package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.CompletionCounterMode;
import io.rdma.verbs.api.CompletionCounterOptions;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.spi.CompCounterHandle;
import io.rdma.verbs.spi.CompletionCounterWords;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A completion counter kept by this provider's completion path, for libraries and devices
 * without {@code ibv_create_comp_cntr}: each polled completion of an attached QP, and each
 * unsignaled WR it completed implicitly, adds one to the completion or error count of the
 * counters attached for that op kind, in {@link CompletionCounterWords}.
 */
final class SoftwareCompletionCounter implements CompCounterHandle {

    private final NativeContext context;
    /** The full 64-bit range: one more wraps to zero, as a 64-bit add does. */
    private final CompletionCounterWords words;
    private final AtomicInteger attachedQps = new AtomicInteger();

    SoftwareCompletionCounter(NativeContext context, CompletionCounterOptions options) {
        this.context = context;
        this.words = CompletionCounterWords.of(options, -1L);
        context.census().created(ResourceKind.COMPLETION_COUNTER);
    }

    void count(boolean success) {
        words.count(success);
    }

    void attached() {
        attachedQps.incrementAndGet();
    }

    void detached() {
        attachedQps.decrementAndGet();
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
        return CompletionCounterMode.SOFTWARE;
    }

    @Override
    public void destroy() {
        int attached = attachedQps.get();
        if (attached > 0) {
            throw new VerbsException("ibv_destroy_comp_cntr", Errno.EBUSY, "still attached to " + attached
                    + " QP(s) on " + context.deviceName(), "destroy the QPs first; there is no detach");
        }
        context.census().destroyed(ResourceKind.COMPLETION_COUNTER);
    }
}

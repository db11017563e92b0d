package io.rdma.verbs.provider.nativ;

import io.rdma.verbs.api.CompletionCounterMode;
import io.rdma.verbs.api.CompletionCounterOptions;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.spi.CompCounterHandle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A completion counter kept by this provider's completion path, for libraries and devices
 * without {@code ibv_create_comp_cntr}: each polled completion of an attached QP, and each
 * unsignaled WR it completed implicitly, adds one to the completion or error count of the
 * counters attached for that op kind. The counts live in 8-byte words (the application's,
 * with external memory) updated atomically; the full 64-bit range wraps to zero.
 */
final class SoftwareCompletionCounter implements CompCounterHandle {

    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    private final NativeContext context;
    private final MemorySegment completions;
    private final MemorySegment errors;
    private final AtomicInteger attachedQps = new AtomicInteger();

    SoftwareCompletionCounter(NativeContext context, CompletionCounterOptions options) {
        this.context = context;
        if (options.usesExternalMemory()) {
            this.completions = externalWord(options.completionCountMemory(), "completion count");
            this.errors = externalWord(options.errorCountMemory(), "error count");
        } else {
            // freed by the GC, not at destroy: a poller may still hold the QP's old attachment list
            Arena memory = Arena.ofAuto();
            this.completions = memory.allocate(ValueLayout.JAVA_LONG);
            this.errors = memory.allocate(ValueLayout.JAVA_LONG);
        }
        context.census().created(ResourceKind.COMPLETION_COUNTER);
    }

    private static MemorySegment externalWord(MemorySegment memory, String what) {
        if (memory == null || memory.byteSize() < Long.BYTES || memory.address() % Long.BYTES != 0) {
            throw new VerbsException("ibv_create_comp_cntr", Errno.EINVAL, "external memory for the " + what
                    + " must be 8 bytes, 8-byte aligned", "pass both segments, each at least 8 aligned bytes");
        }
        return memory.asSlice(0, Long.BYTES);
    }

    void count(boolean success) {
        WORD.getAndAdd(success ? completions : errors, 0L, 1L);
    }

    void attached() {
        attachedQps.incrementAndGet();
    }

    void detached() {
        attachedQps.decrementAndGet();
    }

    @Override
    public long completions() {
        return (long) WORD.getVolatile(completions, 0L);
    }

    @Override
    public long errors() {
        return (long) WORD.getVolatile(errors, 0L);
    }

    @Override
    public void setCompletions(long value) {
        WORD.setVolatile(completions, 0L, value);
    }

    @Override
    public void setErrors(long value) {
        WORD.setVolatile(errors, 0L, value);
    }

    @Override
    public void incrementCompletions(long amount) {
        WORD.getAndAdd(completions, 0L, amount);
    }

    @Override
    public void incrementErrors(long amount) {
        WORD.getAndAdd(errors, 0L, amount);
    }

    /** The unsigned 64-bit maximum: one more wraps to zero, as a 64-bit add does. */
    @Override
    public long maxValue() {
        return -1L;
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

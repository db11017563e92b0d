package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.CompletionCounterMode;
import io.rdma.verbs.api.CompletionCounterOptions;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.spi.CompCounterHandle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A completion counter: two 64-bit values in memory (the application's, with external
 * memory, so another process can watch them), updated atomically and wrapping to zero past
 * the device's max value, as {@code ibv_create_comp_cntr(3)} describes.
 */
final class SimulatedCompCounter implements CompCounterHandle {

    private static final VarHandle VALUE = ValueLayout.JAVA_LONG.varHandle();

    private final SimulatedContext context;
    private final Arena ownedMemory;
    private final MemorySegment completions;
    private final MemorySegment errors;
    private final long maxValue;
    private final AtomicInteger attachments = new AtomicInteger();

    SimulatedCompCounter(SimulatedContext context, CompletionCounterOptions options) {
        this.context = context;
        this.maxValue = context.device().spec().completionCounterMaxValue();
        if (options.usesExternalMemory()) {
            completions = checkExternal(options.completionCountMemory(), "comp_cntr_ext_mem");
            errors = checkExternal(options.errorCountMemory(), "err_cntr_ext_mem");
            ownedMemory = null;
        } else {
            ownedMemory = Arena.ofShared();
            completions = ownedMemory.allocate(ValueLayout.JAVA_LONG);
            errors = ownedMemory.allocate(ValueLayout.JAVA_LONG);
        }
        VALUE.setVolatile(completions, 0L, 0L);
        VALUE.setVolatile(errors, 0L, 0L);
    }

    private static MemorySegment checkExternal(MemorySegment memory, String field) {
        if (memory == null || !memory.isNative() || memory.byteSize() < Long.BYTES
                || memory.address() % Long.BYTES != 0) {
            throw Failures.invalid("ibv_create_comp_cntr", field + " must be native memory of at least 8 bytes, "
                    + "8-byte aligned", "pass an aligned slice of an Arena allocation or a memory-mapped file");
        }
        return memory.asSlice(0, Long.BYTES);
    }

    /** Counts one completed WR; {@code failed} counts it as an error. */
    void count(boolean failed) {
        add(failed ? errors : completions, 1);
    }

    private void add(MemorySegment value, long amount) {
        while (true) {
            long current = (long) VALUE.getVolatile(value, 0L);
            if (VALUE.compareAndSet(value, 0L, current, wrap(current + amount, current, amount))) {
                return;
            }
        }
    }

    /** {@code current + amount} modulo {@code maxValue + 1} (unsigned); -1 is the full 64-bit range. */
    private long wrap(long sum, long current, long amount) {
        if (maxValue == -1) {
            return sum;
        }
        long range = maxValue + 1;
        return Long.remainderUnsigned(Long.remainderUnsigned(current, range) + Long.remainderUnsigned(amount, range),
                range);
    }

    void attached() {
        attachments.incrementAndGet();
    }

    void detached() {
        attachments.decrementAndGet();
    }

    @Override
    public long completions() {
        return (long) VALUE.getVolatile(completions, 0L);
    }

    @Override
    public long errors() {
        return (long) VALUE.getVolatile(errors, 0L);
    }

    @Override
    public void setCompletions(long value) {
        VALUE.setVolatile(completions, 0L, checkRange(value, "ibv_set_comp_cntr"));
    }

    @Override
    public void setErrors(long value) {
        VALUE.setVolatile(errors, 0L, checkRange(value, "ibv_set_err_comp_cntr"));
    }

    private long checkRange(long value, String verb) {
        if (maxValue != -1 && Long.compareUnsigned(value, maxValue) > 0) {
            throw Failures.invalid(verb, "value " + Long.toUnsignedString(value) + " exceeds the counter's max value "
                    + Long.toUnsignedString(maxValue));
        }
        return value;
    }

    @Override
    public void incrementCompletions(long amount) {
        add(completions, amount);
    }

    @Override
    public void incrementErrors(long amount) {
        add(errors, amount);
    }

    @Override
    public long maxValue() {
        return maxValue;
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
        if (ownedMemory != null) {
            ownedMemory.close();
        }
        context.device().release(ResourceKind.COMPLETION_COUNTER);
    }
}

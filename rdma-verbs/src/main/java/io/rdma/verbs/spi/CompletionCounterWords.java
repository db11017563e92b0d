package io.rdma.verbs.spi;

import io.rdma.verbs.api.CompletionCounterOptions;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.Unsigned64;
import io.rdma.verbs.api.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The two 64-bit values of a completion counter kept by a provider rather than a device: in
 * the application's memory when it asked for external memory (so another process can watch
 * them), in the provider's otherwise; updated atomically, and wrapping to zero past the max
 * value as {@code ibv_create_comp_cntr(3)} says. Internal memory is freed by the GC, not at
 * destroy, so a completion path still holding a counter never writes into freed memory.
 */
public final class CompletionCounterWords {

    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();
    /** {@code comp_count_max_value} meaning the full unsigned 64-bit range. */
    private static final long FULL_RANGE = Unsigned64.MAX;

    private final MemorySegment completions;
    private final MemorySegment errors;
    private final long maxValue;

    private CompletionCounterWords(MemorySegment completions, MemorySegment errors, long maxValue) {
        this.completions = completions;
        this.errors = errors;
        this.maxValue = maxValue;
        WORD.setVolatile(completions, 0L, 0L);
        WORD.setVolatile(errors, 0L, 0L);
    }

    /** Words for {@code options}; EINVAL ({@code ibv_create_comp_cntr}) for unusable external memory. */
    public static CompletionCounterWords of(CompletionCounterOptions options, long maxValue) {
        if (options.usesExternalMemory()) {
            return new CompletionCounterWords(external(options.completionCountMemory(), "comp_cntr_ext_mem"),
                    external(options.errorCountMemory(), "err_cntr_ext_mem"), maxValue);
        }
        Arena memory = Arena.ofAuto();
        return new CompletionCounterWords(memory.allocate(ValueLayout.JAVA_LONG), memory.allocate(ValueLayout.JAVA_LONG),
                maxValue);
    }

    private static MemorySegment external(MemorySegment memory, String field) {
        if (memory == null || !memory.isNative() || memory.byteSize() < Long.BYTES
                || memory.address() % Long.BYTES != 0) {
            throw new VerbsException("ibv_create_comp_cntr", Errno.EINVAL, field + " must be native memory of at "
                    + "least 8 bytes, 8-byte aligned", "pass both segments: aligned slices of an Arena allocation "
                    + "or of a memory-mapped file");
        }
        return memory.asSlice(0, Long.BYTES);
    }

    /** One completed WR, counted as a completion or, when it failed, as an error. */
    public void count(boolean success) {
        add(success ? completions : errors, 1);
    }

    public long completions() {
        return (long) WORD.getVolatile(completions, 0L);
    }

    public long errors() {
        return (long) WORD.getVolatile(errors, 0L);
    }

    public void setCompletions(long value) {
        WORD.setVolatile(completions, 0L, checkRange(value, "ibv_set_comp_cntr"));
    }

    public void setErrors(long value) {
        WORD.setVolatile(errors, 0L, checkRange(value, "ibv_set_err_comp_cntr"));
    }

    public void incrementCompletions(long amount) {
        add(completions, amount);
    }

    public void incrementErrors(long amount) {
        add(errors, amount);
    }

    /** {@code comp_count_max_value} (unsigned); -1 is the full 64-bit range. */
    public long maxValue() {
        return maxValue;
    }

    private void add(MemorySegment word, long amount) {
        if (maxValue == FULL_RANGE) {
            WORD.getAndAdd(word, 0L, amount); // a 64-bit add wraps to zero by itself
            return;
        }
        long range = maxValue + 1;
        while (true) {
            long current = (long) WORD.getVolatile(word, 0L);
            long next = Long.remainderUnsigned(Long.remainderUnsigned(current, range)
                    + Long.remainderUnsigned(amount, range), range);
            if (WORD.compareAndSet(word, 0L, current, next)) {
                return;
            }
        }
    }

    private long checkRange(long value, String verb) {
        if (maxValue != FULL_RANGE && Long.compareUnsigned(value, maxValue) > 0) {
            throw new VerbsException(verb, Errno.EINVAL, "value " + Long.toUnsignedString(value)
                    + " exceeds the counter's max value " + Long.toUnsignedString(maxValue), null);
        }
        return value;
    }
}

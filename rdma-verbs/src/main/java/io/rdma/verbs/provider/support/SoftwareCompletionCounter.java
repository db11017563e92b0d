package io.rdma.verbs.provider.support;

import io.rdma.verbs.api.CompletionCounterMode;
import io.rdma.verbs.api.CompletionCounterOptions;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.Unsigned64;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.spi.CompletionCounterHandle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * A completion counter kept by a provider rather than a device: the simulated fabric's, which
 * sees every operation, local and remote, and the native provider's for libraries and devices
 * without {@code ibv_create_comp_cntr}, whose completion path counts each polled completion of
 * an attached QP and each unsignaled WR it completed implicitly. Its two 64-bit values live in
 * the application's memory when it asked for external memory (so another process can watch
 * them), in the provider's otherwise; updated atomically, and wrapping to zero past the max
 * value as {@code ibv_create_comp_cntr(3)} says. Internal memory is freed by the GC, not at
 * destroy, so a completion path still holding a counter never writes into freed memory.
 * External memory is the application's: if it closes the arena while the counter lives, the
 * completion path counts nothing rather than fail a post or poll half-done, and every use of
 * the counter from then on says why (EFAULT).
 */
public final class SoftwareCompletionCounter implements CompletionCounterHandle {

    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();
    /** {@code comp_count_max_value} meaning the full unsigned 64-bit range. */
    private static final long FULL_RANGE = Unsigned64.MAX;

    private final MemorySegment completions;
    private final MemorySegment errors;
    private final long maxValue;
    private final CompletionCounterMode mode;
    private final String deviceName;
    private final Runnable release;
    private final AtomicInteger attachedQps = new AtomicInteger();
    private volatile boolean destroyed;

    private SoftwareCompletionCounter(MemorySegment completions, MemorySegment errors, long maxValue,
                                      CompletionCounterMode mode, String deviceName, Runnable release) {
        this.completions = completions;
        this.errors = errors;
        this.maxValue = maxValue;
        this.mode = mode;
        this.deviceName = deviceName;
        this.release = release;
        WORD.setVolatile(completions, 0L, 0L);
        WORD.setVolatile(errors, 0L, 0L);
    }

    /**
     * A counter for {@code options} on {@code deviceName}; EINVAL ({@code ibv_create_comp_cntr})
     * for unusable external memory. {@code release} runs when it is destroyed.
     */
    public static SoftwareCompletionCounter of(CompletionCounterOptions options, long maxValue,
                                               CompletionCounterMode mode, String deviceName, Runnable release) {
        if (options.usesExternalMemory()) {
            return new SoftwareCompletionCounter(external(options.completionCountMemory(), "comp_cntr_ext_mem"),
                    external(options.errorCountMemory(), "err_cntr_ext_mem"), maxValue, mode, deviceName, release);
        }
        Arena memory = Arena.ofAuto();
        return new SoftwareCompletionCounter(memory.allocate(ValueLayout.JAVA_LONG),
                memory.allocate(ValueLayout.JAVA_LONG), maxValue, mode, deviceName, release);
    }

    private static MemorySegment external(@Nullable MemorySegment memory, String field) {
        if (memory == null || !memory.isNative() || memory.byteSize() < Long.BYTES
                || memory.address() % Long.BYTES != 0) {
            throw new VerbsException("ibv_create_comp_cntr", Errno.EINVAL, field + " must be native memory of at "
                    + "least 8 bytes, 8-byte aligned", "pass both segments: aligned slices of an Arena allocation "
                    + "or of a memory-mapped file");
        }
        // A thread not yet started stands for the posting and polling threads, whichever they are.
        if (!memory.isAccessibleBy(new Thread(() -> { }))) {
            throw new VerbsException("ibv_create_comp_cntr", Errno.EINVAL, field + " is confined to one thread, "
                    + "but completions are counted by whichever thread posts or polls",
                    "allocate it from a shared, global or automatic arena, or map a file");
        }
        return memory.asSlice(0, Long.BYTES);
    }

    /**
     * One completed WR, counted as a completion or, when it failed, as an error. Never throws:
     * it runs inside posts and polls, which must not stop half-done.
     */
    public void count(boolean success) {
        MemorySegment word = success ? completions : errors;
        try {
            add(word, 1);
        } catch (IllegalStateException closed) {
            // The application closed the external memory: there is nowhere left to count, and
            // every later use of this counter reports it.
        }
    }

    /** Attached to one more QP ({@code ibv_qp_attach_comp_cntr}); there is no detach but the QP's destroy. */
    public void attached() {
        attachedQps.incrementAndGet();
    }

    /** A QP it was attached to is destroyed. */
    public void detached() {
        attachedQps.decrementAndGet();
    }

    @Override
    public long completions() {
        return read(completions, "comp_count");
    }

    @Override
    public long errors() {
        return read(errors, "err_count");
    }

    @Override
    public void setCompletions(long value) {
        write(completions, checkRange(value, "ibv_set_comp_cntr"), "ibv_set_comp_cntr");
    }

    @Override
    public void setErrors(long value) {
        write(errors, checkRange(value, "ibv_set_err_comp_cntr"), "ibv_set_err_comp_cntr");
    }

    @Override
    public void incrementCompletions(long amount) {
        increment(completions, amount, "ibv_inc_comp_cntr");
    }

    @Override
    public void incrementErrors(long amount) {
        increment(errors, amount, "ibv_inc_err_comp_cntr");
    }

    /**
     * A hardware counter's memory is freed at its destroy, so the API must never use a counter
     * after it; this one's memory outlives it, and it refuses such a use loudly instead, so that
     * a race between a read and a close shows on the simulated fabric too.
     */
    private void checkNotDestroyed(String verb) {
        if (destroyed) {
            throw new IllegalStateException(verb + " on a destroyed completion counter of " + deviceName);
        }
    }

    private long read(MemorySegment word, String field) {
        checkNotDestroyed("read of " + field);
        try {
            return (long) WORD.getVolatile(word, 0L);
        } catch (IllegalStateException closed) {
            throw memoryGone("read of " + field, closed);
        }
    }

    private void write(MemorySegment word, long value, String verb) {
        checkNotDestroyed(verb);
        try {
            WORD.setVolatile(word, 0L, value);
        } catch (IllegalStateException closed) {
            throw memoryGone(verb, closed);
        }
    }

    private void increment(MemorySegment word, long amount, String verb) {
        checkNotDestroyed(verb);
        try {
            add(word, amount);
        } catch (IllegalStateException closed) {
            throw memoryGone(verb, closed);
        }
    }

    private static VerbsException memoryGone(String verb, IllegalStateException closed) {
        return new VerbsException(verb, Errno.EFAULT, "the counter's external memory was closed ("
                + closed.getMessage() + "); completions since then were not counted",
                "keep the arena of comp_cntr_ext_mem and err_cntr_ext_mem open until the counter is destroyed")
                .withCause(closed);
    }

    /** {@code comp_count_max_value} (unsigned); -1 is the full 64-bit range. */
    @Override
    public long maxValue() {
        return maxValue;
    }

    @Override
    public CompletionCounterMode mode() {
        return mode;
    }

    @Override
    public void destroy() {
        int attached = attachedQps.get();
        if (attached > 0) {
            throw new VerbsException("ibv_destroy_comp_cntr", Errno.EBUSY, "still attached to " + attached
                    + " QP(s) on " + deviceName, "destroy the QPs first; there is no detach");
        }
        destroyed = true;
        release.run();
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

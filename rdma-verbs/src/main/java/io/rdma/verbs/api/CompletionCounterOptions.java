package io.rdma.verbs.api;

import java.lang.foreign.MemorySegment;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_comp_cntr_init_attr}. With external memory
 * ({@code IBV_COMP_CNTR_INIT_WITH_EXTERNAL_MEM}) the completion and error counts live in
 * application-supplied 8-byte aligned segments (for example a memory-mapped file another
 * process watches); otherwise the provider allocates them.
 *
 * <p>Immutable, so thread-safe; the memory it names is written by the counter, concurrently.
 */
public record CompletionCounterOptions(@Nullable MemorySegment completionCountMemory,
                                       @Nullable MemorySegment errorCountMemory) {

    public static CompletionCounterOptions internalMemory() {
        return new CompletionCounterOptions(null, null);
    }

    /** Both segments are required: {@code ibv_create_comp_cntr} refuses a missing one (EINVAL). */
    public static CompletionCounterOptions externalMemory(MemorySegment completionCount, MemorySegment errorCount) {
        return new CompletionCounterOptions(completionCount, errorCount);
    }

    public boolean usesExternalMemory() {
        return completionCountMemory != null || errorCountMemory != null;
    }
}

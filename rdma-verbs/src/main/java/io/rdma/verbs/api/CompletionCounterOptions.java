package io.rdma.verbs.api;

import java.lang.foreign.MemorySegment;

/**
 * {@code struct ibv_comp_cntr_init_attr}. With external memory
 * ({@code IBV_COMP_CNTR_INIT_WITH_EXTERNAL_MEM}) the completion and error counts live in
 * application-supplied 8-byte aligned segments (for example a memory-mapped file another
 * process watches); otherwise the provider allocates them.
 */
public record CompletionCounterOptions(MemorySegment completionCountMemory, MemorySegment errorCountMemory) {

    public static CompletionCounterOptions internalMemory() {
        return new CompletionCounterOptions(null, null);
    }

    public static CompletionCounterOptions externalMemory(MemorySegment completionCount, MemorySegment errorCount) {
        return new CompletionCounterOptions(completionCount, errorCount);
    }

    public boolean usesExternalMemory() {
        return completionCountMemory != null || errorCountMemory != null;
    }
}

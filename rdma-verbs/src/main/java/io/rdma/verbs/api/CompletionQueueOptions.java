package io.rdma.verbs.api;

import org.jspecify.annotations.Nullable;

/**
 * Creation settings of a CQ ({@code ibv_create_cq}, or {@code ibv_create_cq_ex} when
 * timestamps are asked for).
 *
 * @param entries              minimum number of CQEs; a shared CQ needs at least send + recv WRs (verbs manual §5.2)
 * @param channel              completion channel for event notification, or {@code null} for polling only
 * @param completionVector     interrupt vector, 0 to {@code num_comp_vectors - 1}
 * @param completionTimestamps request {@code IBV_WC_EX_WITH_COMPLETION_TIMESTAMP}; the device must support it
 *
 * <p>Immutable, so thread-safe; the channel it names is thread-safe itself.
 */
public record CompletionQueueOptions(int entries, @Nullable CompletionChannel channel, int completionVector,
                                     boolean completionTimestamps) {

    public static CompletionQueueOptions of(int entries) {
        return new CompletionQueueOptions(entries, null, 0, false);
    }

    public CompletionQueueOptions withChannel(CompletionChannel value) {
        return new CompletionQueueOptions(entries, value, completionVector, completionTimestamps);
    }

    public CompletionQueueOptions withTimestamps() {
        return new CompletionQueueOptions(entries, channel, completionVector, true);
    }
}

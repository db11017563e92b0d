package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.WorkCompletion;

/**
 * A copy of one polled {@link WorkCompletion}: batch slots are overwritten by the next poll,
 * and assertions need values that stay put.
 */
public record Completion(long wrId, CompletionStatus status, CompletionOpcode opcode, long byteLength,
                         boolean hasImmediateData, int immediateData, boolean hasGrh, int qpNumber,
                         int sourceQpNumber, long timestamp) {

    static Completion of(WorkCompletion completion) {
        return new Completion(completion.wrId(), completion.status(), completion.opcode(), completion.byteLength(),
                completion.hasImmediateData(), completion.immediateData(), completion.hasGrh(),
                completion.qpNumber(), completion.sourceQpNumber(), completion.completionTimestamp());
    }
}

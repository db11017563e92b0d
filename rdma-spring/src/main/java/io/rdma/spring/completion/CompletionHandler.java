package io.rdma.spring.completion;

import io.rdma.verbs.api.WorkCompletion;

/**
 * Takes the completions of one queue of one QP, on the CQ's poller thread. The completion is a
 * slot of a reused batch: copy what you need before returning, and do not block.
 */
@FunctionalInterface
public interface CompletionHandler {

    void onCompletion(WorkCompletion completion);
}

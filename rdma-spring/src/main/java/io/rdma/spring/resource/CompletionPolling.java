package io.rdma.spring.resource;

import java.time.Duration;

/** How a completion queue's poller takes completions: its mode, busy-poll window and batch size. */
public record CompletionPolling(CompletionMode mode, Duration pollWindow, int batchSize) {
}

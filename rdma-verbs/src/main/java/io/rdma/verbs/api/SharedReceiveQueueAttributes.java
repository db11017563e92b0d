package io.rdma.verbs.api;

/**
 * {@code struct ibv_srq_attr}: {@code limit} 0 means the limit event is disarmed.
 *
 * <p>Immutable, so thread-safe.
 */
public record SharedReceiveQueueAttributes(int maxWr, int maxSge, int limit) {

    public static SharedReceiveQueueAttributes of(int maxWr, int limit) {
        return new SharedReceiveQueueAttributes(maxWr, 1, limit);
    }
}

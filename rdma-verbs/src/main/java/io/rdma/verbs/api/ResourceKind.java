package io.rdma.verbs.api;

/**
 * The kinds of verbs objects, declared in the order libibverbs requires them to be
 * destroyed (verbs manual §11.3): connection manager ids first (a connection is torn down
 * before its QP), flows before the counters they feed, QPs before the SRQs, AHs
 * and CQs they use, completion counters only once no QP is attached to them, and so on up
 * to the device context. Closing a parent destroys its dependents in this order.
 *
 * <p>Immutable, so thread-safe.
 */
public enum ResourceKind {
    CONNECTION_LISTENER,
    CONNECTION,
    FLOW,
    QUEUE_PAIR,
    SHARED_RECEIVE_QUEUE,
    ADDRESS_HANDLE,
    COMPLETION_QUEUE,
    COMPLETION_CHANNEL,
    COMPLETION_COUNTER,
    FLOW_COUNTERS,
    MEMORY_POOL,
    MEMORY_REGION,
    PROTECTION_DOMAIN,
    DEVICE_CONTEXT;

    /** Position in the destroy order: lower is destroyed first. */
    public int destroyRank() {
        return ordinal();
    }
}

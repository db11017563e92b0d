package io.rdma.verbs.spi;

/** {@code struct ibv_cq} (or {@code ibv_cq_ex}). */
public interface CqHandle {

    /** Entries actually granted (at least those requested). */
    int capacity();

    /**
     * {@code ibv_poll_cq}: writes up to {@code max} completions into {@code sink} from index 0
     * and returns how many. Must not allocate.
     */
    int poll(CompletionSink sink, int max);

    /** {@code ibv_req_notify_cq}. */
    void requestNotify(boolean solicitedOnly);

    /** {@code ibv_ack_cq_events}. */
    void acknowledgeEvents(int count);

    /** {@code ibv_destroy_cq}. */
    void destroy();
}

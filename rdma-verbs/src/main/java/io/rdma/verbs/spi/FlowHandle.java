package io.rdma.verbs.spi;

/** {@code struct ibv_flow}. */
public interface FlowHandle {
    /** {@code ibv_destroy_flow}. */
    void destroy();
}

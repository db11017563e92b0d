package io.rdma.verbs.spi;

/** {@code struct ibv_ah}. */
public interface AhHandle {
    /** {@code ibv_destroy_ah}. */
    void destroy();
}

package io.rdma.verbs.spi;

/** {@code struct ibv_mr}. */
public interface MrHandle {
    int lkey();

    int rkey();

    /** {@code ibv_dereg_mr}. */
    void destroy();
}

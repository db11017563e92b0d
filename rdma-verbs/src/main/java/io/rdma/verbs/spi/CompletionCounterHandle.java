package io.rdma.verbs.spi;

import io.rdma.verbs.api.CompletionCounterMode;

/** {@code struct ibv_comp_cntr}. */
public interface CompletionCounterHandle {

    long completions();

    long errors();

    /** {@code ibv_set_comp_cntr}. */
    void setCompletions(long value);

    /** {@code ibv_set_err_comp_cntr}. */
    void setErrors(long value);

    /** {@code ibv_inc_comp_cntr}. */
    void incrementCompletions(long amount);

    /** {@code ibv_inc_err_comp_cntr}. */
    void incrementErrors(long amount);

    /** {@code comp_count_max_value}: an increment past it wraps the count to zero. */
    long maxValue();

    CompletionCounterMode mode();

    /** {@code ibv_destroy_comp_cntr}; EBUSY while attached to a QP. */
    void destroy();
}

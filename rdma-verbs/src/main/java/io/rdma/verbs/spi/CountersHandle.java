package io.rdma.verbs.spi;

import io.rdma.verbs.api.CounterDescription;

import org.jspecify.annotations.Nullable;

/** {@code struct ibv_counters}: flow counters. */
public interface CountersHandle {

    /** {@code ibv_attach_counters_point_flow}; {@code flow} null is a static attach. */
    void attachPoint(CounterDescription description, int index, @Nullable FlowHandle flow);

    /** {@code ibv_read_counters} into {@code values}, one per index; returns how many indexes are defined. */
    int read(long[] values);

    /** {@code ibv_destroy_counters}. */
    void destroy();
}

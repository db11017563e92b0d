package io.rdma.verbs.spi;

import io.rdma.verbs.api.CompletionCounterOptions;
import io.rdma.verbs.api.DeviceAttributes;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.GidEntry;
import io.rdma.verbs.api.PortAttributes;
import io.rdma.verbs.api.PortCounters;

import java.util.List;

import org.jspecify.annotations.Nullable;

/** {@code struct ibv_context}: an opened device. */
public interface ContextHandle {

    /** {@code ibv_query_device} (with the extended limits of {@code ibv_query_device_ex}). */
    DeviceAttributes queryDevice();

    /** {@code ibv_query_port}; ports are numbered from 1. */
    PortAttributes queryPort(int port);

    /** {@code ibv_query_gid}. */
    Gid queryGid(int port, int index);

    /** The used entries of a port's GID table, in index order: empty entries are left out. */
    List<GidEntry> gidTable(int port);

    /** One read of every port and hardware counter of the port (sysfs {@code counters/} and {@code hw_counters/} on Linux). */
    PortCounters portCounters(int port);

    PdHandle allocatePd();

    ChannelHandle createCompletionChannel();

    /** {@code ibv_create_cq}, or {@code ibv_create_cq_ex} with completion timestamps. {@code channel} may be null. */
    CqHandle createCompletionQueue(int entries, @Nullable ChannelHandle channel, int completionVector, boolean timestamps);

    /** {@code ibv_create_comp_cntr}. */
    CompletionCounterHandle createCompletionCounter(CompletionCounterOptions options);

    /** {@code ibv_create_counters}. */
    CountersHandle createFlowCounters();

    /** Starts delivering async events to {@code sink} until {@link #close()}. */
    void startAsyncEvents(AsyncEventSink sink);

    /** {@code ibv_close_device}. */
    void close();
}

package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.CounterDescription;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.provider.ibverbs.generated.ibv_counter_attach_attr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_counters_init_attr;
import io.rdma.verbs.provider.ibverbs.generated.rdma_h;
import io.rdma.verbs.spi.CountersHandle;
import io.rdma.verbs.spi.FlowHandle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_counters} through the {@code verbs_context} ops. Devices without flow
 * counters (rxe) answer EOPNOTSUPP at creation, which surfaces as a {@link VerbsException}.
 */
final class NativeFlowCounters implements CountersHandle {

    private final NativeContext context;
    private final MemorySegment counters;
    /** Highest attached index + 1: how many values a read returns. */
    private int defined;
    private volatile boolean bound;

    private NativeFlowCounters(NativeContext context, MemorySegment counters) {
        this.context = context;
        this.counters = counters;
        context.census().created(ResourceKind.FLOW_COUNTERS);
    }

    static NativeFlowCounters create(NativeContext context) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment init = ibv_counters_init_attr.allocate(arena);
            return new NativeFlowCounters(context, context.verbs().createCounters(init,
                    "flow counters on " + context.deviceName()));
        }
    }

    /** Whether the device creates flow counters: one is created and destroyed at context open. */
    static boolean probe(NativeContext context) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment counters = context.verbs().createCounters(ibv_counters_init_attr.allocate(arena), null);
            context.verbs().destroyCounters(counters);
            return true;
        } catch (VerbsException e) {
            return false;
        }
    }

    MemorySegment segment() {
        return counters;
    }

    void bound() {
        bound = true;
    }

    @Override
    public synchronized void attachPoint(CounterDescription description, int index, @Nullable FlowHandle flow) {
        if (bound && flow == null) {
            throw new VerbsException("ibv_attach_counters_point_flow", Errno.EBUSY,
                    "these counters are already bound to a flow", "attach every point before creating the flow");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_counter_attach_attr.allocate(arena);
            ibv_counter_attach_attr.counter_desc(attr, description == CounterDescription.PACKETS
                    ? rdma_h.IBV_COUNTER_PACKETS() : rdma_h.IBV_COUNTER_BYTES());
            ibv_counter_attach_attr.index(attr, index);
            context.verbs().attachCountersPointFlow(counters, attr,
                    flow == null ? MemorySegment.NULL : ((NativeFlow) flow).segment(),
                    description + " at index " + index);
            defined = Math.max(defined, index + 1);
        }
    }

    @Override
    public synchronized int read(long[] values) {
        int count = Math.min(values.length, defined);
        if (count == 0) {
            return 0;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(ValueLayout.JAVA_LONG, count);
            context.verbs().readCounters(counters, buffer, count);
            MemorySegment.copy(buffer, ValueLayout.JAVA_LONG, 0, values, 0, count);
            return count;
        }
    }

    @Override
    public void destroy() {
        context.verbs().destroyCounters(counters);
        context.census().destroyed(ResourceKind.FLOW_COUNTERS);
    }
}

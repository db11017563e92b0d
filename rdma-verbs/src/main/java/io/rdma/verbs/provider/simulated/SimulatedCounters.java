package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.CounterDescription;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.provider.support.LiveObjectCensus;
import io.rdma.verbs.spi.CountersHandle;
import io.rdma.verbs.spi.FlowHandle;

import java.util.concurrent.atomic.AtomicLongArray;

import org.jspecify.annotations.Nullable;

/**
 * Flow counters ({@code ibv_counters}): points attached statically at indexes before the
 * handle is bound to a flow; values accumulate per index over every bound flow.
 */
final class SimulatedCounters implements CountersHandle {

    static final int MAX_INDEXES = 64;

    private final LiveObjectCensus census;
    private final AtomicLongArray values = new AtomicLongArray(MAX_INDEXES);
    /** Description attached at each index, as bits: 1 = packets, 2 = bytes (an index may aggregate both). */
    private final int[] descriptions = new int[MAX_INDEXES];
    private int definedIndexes;
    private int boundFlows;
    private volatile boolean destroyed;

    SimulatedCounters(LiveObjectCensus census) {
        this.census = census;
    }

    @Override
    public synchronized void attachPoint(CounterDescription description, int index, @Nullable FlowHandle flow) {
        if (flow != null) {
            throw Failures.unsupported("ibv_attach_counters_point_flow", "attaching to an existing flow",
                    "attach statically (no flow) before creating the flow with these counters");
        }
        if (boundFlows > 0) {
            throw Failures.busy("ibv_attach_counters_point_flow", "the counters are already bound to a flow",
                    "attach every counter point before creating the flow");
        }
        if (index < 0 || index >= MAX_INDEXES) {
            throw Failures.invalid("ibv_attach_counters_point_flow", "index " + index + " is outside 0.."
                    + (MAX_INDEXES - 1));
        }
        descriptions[index] |= description == CounterDescription.PACKETS ? 1 : 2;
        definedIndexes = Math.max(definedIndexes, index + 1);
    }

    synchronized void bind() {
        boundFlows++;
    }

    synchronized void unbind() {
        boundFlows--;
    }

    /** A packet of {@code bytes} matched a bound flow. */
    void count(long bytes) {
        int defined;
        synchronized (this) {
            defined = definedIndexes;
        }
        for (int index = 0; index < defined; index++) {
            int kinds = descriptions[index];
            long amount = ((kinds & 1) != 0 ? 1 : 0) + ((kinds & 2) != 0 ? bytes : 0);
            if (amount != 0) {
                values.addAndGet(index, amount);
            }
        }
    }

    @Override
    public int read(long[] into) {
        // ibv_destroy_counters frees what ibv_read_counters reads: the API must never read after
        // it, and the fabric refuses such a read loudly so that a race with a close shows
        if (destroyed) {
            throw new IllegalStateException("ibv_read_counters on destroyed flow counters");
        }
        int defined;
        synchronized (this) {
            defined = Math.min(definedIndexes, into.length);
        }
        for (int index = 0; index < defined; index++) {
            into[index] = values.get(index);
        }
        return defined;
    }

    @Override
    public synchronized void destroy() {
        if (boundFlows > 0) {
            throw Failures.busy("ibv_destroy_counters", "the counters are bound to " + boundFlows + " flow(s)",
                    "destroy the flows first");
        }
        destroyed = true;
        census.destroyed(ResourceKind.FLOW_COUNTERS);
    }
}

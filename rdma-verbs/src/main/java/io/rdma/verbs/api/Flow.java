package io.rdma.verbs.api;

import io.rdma.verbs.spi.FlowHandle;

import java.util.ArrayList;
import java.util.List;

/** {@code struct ibv_flow}: a steering rule to a QP, optionally feeding flow counters. Destroyed before them. */
public final class Flow extends VerbsResource {

    private final FlowSpec spec;
    private final FlowHandle handle;
    private final FlowCounters counters;

    Flow(QueuePair qp, FlowSpec spec, FlowCounters counters, FlowHandle handle) {
        super(ResourceKind.FLOW, qp.context(), handle, parentsOf(qp, counters));
        this.spec = spec;
        this.counters = counters;
        this.handle = handle;
    }

    private static List<VerbsResource> parentsOf(QueuePair qp, FlowCounters counters) {
        List<VerbsResource> parents = new ArrayList<>(List.of(qp));
        if (counters != null) {
            parents.add(counters);
        }
        return parents;
    }

    public FlowSpec spec() {
        return spec;
    }

    public FlowCounters counters() {
        return counters;
    }


    @Override
    void destroyHandle() {
        handle.destroy();
    }

    @Override
    String describe() {
        return "flow on port " + spec.port() + " of " + context().deviceName();
    }
}

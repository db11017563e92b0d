package io.rdma.verbs.api;

import io.rdma.verbs.spi.FlowHandle;

import java.util.List;

/**
 * {@code struct ibv_flow}: a steering rule to a QP, optionally feeding flow counters. The
 * counters are not its parent: like a completion counter attached to a QP, they refuse to be
 * destroyed (EBUSY) while a flow uses them, and a context close destroys flows first.
 */
public final class Flow extends VerbsResource {

    private final FlowSpec spec;
    private final FlowHandle handle;
    private final FlowCounters counters;

    Flow(QueuePair qp, FlowSpec spec, FlowCounters counters, FlowHandle handle) {
        super(ResourceKind.FLOW, qp.context(), handle, List.of(qp));
        this.spec = spec;
        this.counters = counters;
        this.handle = handle;
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

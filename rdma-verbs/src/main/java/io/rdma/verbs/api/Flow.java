package io.rdma.verbs.api;

import io.rdma.verbs.spi.FlowHandle;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_flow}: a steering rule to a QP, optionally feeding flow counters. The
 * counters are not its parent: like a completion counter attached to a QP, they refuse to be
 * destroyed (EBUSY) while a flow uses them, and a context close destroys flows first.
 *
 * <p>Nothing depends on a flow; closing it ({@code ibv_destroy_flow}) unbinds its counters. Its
 * QP's close closes it first.
 *
 * <p>Thread-safe: immutable apart from its close.
 */
public final class Flow extends VerbsResource {

    private final FlowSpec spec;
    private final FlowHandle handle;
    private final @Nullable FlowCounters counters;

    Flow(QueuePair qp, FlowSpec spec, @Nullable FlowCounters counters, FlowHandle handle) {
        super(ResourceKind.FLOW, qp.context(), handle, List.of(qp));
        this.spec = spec;
        this.counters = counters;
        this.handle = handle;
    }

    public FlowSpec spec() {
        return spec;
    }

    /** The counters bound to this flow, or {@code null} when it has none. */
    public @Nullable FlowCounters counters() {
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

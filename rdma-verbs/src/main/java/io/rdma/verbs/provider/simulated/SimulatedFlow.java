package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.FlowSpec;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.spi.FlowHandle;

import org.jspecify.annotations.Nullable;

/** A steering rule on a port: matching packets go to its QP and count in its counters. */
final class SimulatedFlow implements FlowHandle {

    private final SimulatedQp qp;
    private final SimulatedPort port;
    private final FlowSpec spec;
    private final @Nullable SimulatedCounters counters;

    SimulatedFlow(SimulatedQp qp, SimulatedPort port, FlowSpec spec, @Nullable SimulatedCounters counters) {
        this.qp = qp;
        this.port = port;
        this.spec = spec;
        this.counters = counters;
        if (counters != null) {
            counters.bind();
        }
        port.addFlow(this);
        qp.device().host().census().created(ResourceKind.FLOW);
    }

    int priority() {
        return spec.priority();
    }

    FlowSpec spec() {
        return spec;
    }

    SimulatedQp qp() {
        return qp;
    }

    /** A packet of {@code bytes} was steered by this flow. */
    void counted(long bytes) {
        if (counters != null) {
            counters.count(bytes);
        }
    }

    @Override
    public void destroy() {
        port.removeFlow(this);
        if (counters != null) {
            counters.unbind();
        }
        qp.device().host().census().destroyed(ResourceKind.FLOW);
    }
}

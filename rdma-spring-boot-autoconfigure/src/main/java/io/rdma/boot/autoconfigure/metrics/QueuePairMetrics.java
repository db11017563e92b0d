package io.rdma.boot.autoconfigure.metrics;

import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.ResourceClosedException;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code rdma_qp_state_id{device,qp}} per declared queue pair: the {@code ibv_qp_state} code
 * (0: reset, 1: init, 2: rtr, 3: rts, 4: sqd, 5: sqe, 6: err), so that a QP that fell into ERR shows.
 * The per-peer QPs listeners create come and go with their peers and are not declared: they have none,
 * which keeps the label set to what the configuration names.
 */
public class QueuePairMetrics implements RdmaMeterBinder {

    private final RdmaResources resources;

    public QueuePairMetrics(RdmaResources resources) {
        this.resources = resources;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (RdmaResources.Named<QueuePair> qp : resources.resources(QueuePair.class)) {
            // looked up at each scrape: a reconnection may have made the declared queue pair anew
            String name = qp.name();
            Gauge.builder("rdma.qp.state.id", resources, declared -> state(declared, name))
                    .description("State of the queue pair, the ibv_qp_state code (0: reset, 1: init, 2: rtr, 3: rts,"
                            + " 4: sqd, 5: sqe, 6: err)")
                    .tags("device", qp.resource().context().deviceName(), "qp", qp.name()).register(registry);
        }
    }

    private static double state(RdmaResources resources, String name) {
        try {
            return resources.resource(name).map(managed -> (QueuePair) managed.resource()).orElseThrow().state()
                    .ordinal();
        } catch (ResourceClosedException e) {
            return Double.NaN;
        }
    }
}

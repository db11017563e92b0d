package io.rdma.boot.autoconfigure.metrics;

import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.CounterDescription;
import io.rdma.verbs.api.Flow;
import io.rdma.verbs.api.FlowCounters;
import io.rdma.verbs.api.Unsigned64;

import java.util.List;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;

import org.jspecify.annotations.Nullable;

/**
 * {@code rdma_flow_packets_total} and {@code rdma_flow_bytes_total} per flow with counters, one
 * meter per counter point the flow's configuration declares, tagged {@code device}, {@code port},
 * {@code flow} and {@code index}. A device without flow counters (rxe) has no flow with counters,
 * so no meter. The points of a flow share one {@code ibv_read_counters} per scrape
 * ({@link ScrapeSnapshot}); the values are u64s, read unsigned.
 */
public class FlowCounterMetrics implements RdmaMeterBinder {

    private final RdmaResources resources;

    public FlowCounterMetrics(RdmaResources resources) {
        this.resources = resources;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (RdmaResources.Named<Flow> flow : resources.resources(Flow.class)) {
            FlowCounters counters = flow.resource().counters();
            if (counters == null) {
                continue;
            }
            ScrapeSnapshot<long[]> snapshot = ScrapeSnapshot.of(counters, counters::read);
            String device = counters.context().deviceName();
            List<CounterDescription> points = resources.flowCounterPoints(flow.name());
            for (int index = 0; index < points.size(); index++) {
                int point = index;
                int reader = snapshot.reader();
                boolean packets = points.get(index) == CounterDescription.PACKETS;
                // the function holds the snapshot, the meter the flow's counters (see ScrapeSnapshot)
                FunctionCounter.builder(packets ? "rdma.flow.packets" : "rdma.flow.bytes", counters,
                                c -> value(snapshot.valueFor(reader), point))
                        .description(packets ? "Packets the flow steered" : "Bytes the flow steered")
                        .tags("device", device, "port", Integer.toString(flow.resource().spec().port()), "flow",
                                flow.name(), "index", Integer.toString(point))
                        .register(registry);
            }
        }
    }

    private static double value(long @Nullable [] values, int index) {
        return values != null && index < values.length ? Unsigned64.toDouble(values[index]) : Double.NaN;
    }

}

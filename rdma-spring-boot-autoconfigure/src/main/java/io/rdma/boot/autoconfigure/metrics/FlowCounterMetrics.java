package io.rdma.boot.autoconfigure.metrics;

import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.Flow;
import io.rdma.verbs.api.FlowCounters;
import io.rdma.verbs.api.Unsigned64;

import java.util.Locale;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * {@code rdma.flow.packets} and {@code rdma.flow.bytes} per flow, one meter per counter point
 * the flow's configuration declares, read with {@code ibv_read_counters} on scrape (u64s, read unsigned).
 */
public class FlowCounterMetrics implements MeterBinder {

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
            String device = counters.context().deviceName();
            var descriptions = resources.flowCounterPoints(flow.name());
            for (int index = 0; index < descriptions.size(); index++) {
                int point = index;
                String what = descriptions.get(index).name().toLowerCase(Locale.ROOT);
                FunctionCounter.builder("rdma.flow." + what, counters, c -> read(c, point))
                        .description("Flow counter point " + point + " of the flow").baseUnit(what)
                        .tags("device", device, "port", Integer.toString(flow.resource().spec().port()), "flow",
                                flow.name(), "index", Integer.toString(point))
                        .register(registry);
            }
        }
    }

    private static double read(FlowCounters counters, int index) {
        if (counters.isClosed()) {
            return Double.NaN;
        }
        long[] values = counters.read();
        return index < values.length ? Unsigned64.toDouble(values[index]) : Double.NaN;
    }
}

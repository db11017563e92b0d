package io.rdma.boot.autoconfigure.metrics;

import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.PortCounters;
import io.rdma.verbs.api.Unsigned64;

import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import org.jspecify.annotations.Nullable;

/**
 * The port and hardware counters of each configured port, under node_exporter's names
 * ({@link NodeExporterNames}) where it has one, else as {@code rdma_port_hw_stat_total{stat}}, tagged
 * {@code device} and {@code port}. Discovered when bound from what the device offers, so a device
 * without PMA counters (rxe) or without some hardware counter has no meter for it rather than a zero.
 *
 * <p>All meters of a port share one {@link ScrapeSnapshot}: a scrape reads the port's sysfs
 * directories once, not once per counter. A counter in both directories keeps the {@code counters/}
 * one. sysfs counters are u64s, read unsigned.
 */
public class PortCounterMetrics implements RdmaMeterBinder {

    static final String HW_STAT = "rdma.port.hw.stat";

    private final RdmaResources resources;

    public PortCounterMetrics(RdmaResources resources) {
        this.resources = resources;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (RdmaResources.Named<DeviceContext> device : resources.resources(DeviceContext.class)) {
            DeviceContext context = device.resource();
            for (int port : resources.configuredPorts(device.name())) {
                ScrapeSnapshot<PortCounters> snapshot = ScrapeSnapshot.of(context, () -> context.portCounters(port));
                PortCounters offered = context.portCounters(port);
                Tags tags = Tags.of("device", context.deviceName(), "port", Integer.toString(port));
                for (String name : new TreeSet<>(offered.counters().keySet())) {
                    bind(registry, context, snapshot, tags, name, NodeExporterNames.ofCounter(name),
                            PortCounters::counters);
                }
                for (String name : new TreeSet<>(offered.hardwareCounters().keySet())) {
                    if (!offered.counters().containsKey(name)) {
                        bind(registry, context, snapshot, tags, name, NodeExporterNames.ofHardwareCounter(name),
                                PortCounters::hardwareCounters);
                    }
                }
            }
        }
    }

    /** A meter of {@code context}'s port; its function holds {@code snapshot} (see {@link ScrapeSnapshot}). */
    private static void bind(MeterRegistry registry, DeviceContext context, ScrapeSnapshot<PortCounters> snapshot,
                             Tags tags, String name, NodeExporterNames.@Nullable Family family,
                             Function<PortCounters, Map<String, Long>> directory) {
        int reader = snapshot.reader();
        if (name.equals(NodeExporterNames.LIFESPAN)) {
            Gauge.builder("rdma.lifespan", context, c -> value(snapshot.valueFor(reader), directory, name) / 1000)
                    .description("How long the driver caches its hardware counters (hw_counters/lifespan)")
                    .baseUnit("seconds").tags(tags).register(registry);
        } else if (family == null) {
            FunctionCounter.builder(HW_STAT, context, c -> value(snapshot.valueFor(reader), directory, name))
                    .description("Port or hardware counter node_exporter has no name for, by its sysfs file name")
                    .tags(tags).tag("stat", name).register(registry);
        } else {
            FunctionCounter.builder(NodeExporterNames.meterName(family.name()), context,
                            c -> value(snapshot.valueFor(reader), directory, name) * family.scale())
                    .description("sysfs port counter " + name).tags(tags).register(registry);
        }
    }

    private static double value(@Nullable PortCounters counters, Function<PortCounters, Map<String, Long>> directory,
                                String name) {
        Long value = counters == null ? null : directory.apply(counters).get(name);
        return value == null ? Double.NaN : Unsigned64.toDouble(value);
    }

}

package io.rdma.boot.autoconfigure.metrics;

import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.Unsigned64;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * {@code rdma.port.counter} per configured port and counter, as the device exposes them
 * ({@code DeviceContext.portCounters}): discovered when bound, read on scrape, tagged
 * {@code device}, {@code port} and {@code counter} (a fixed set per device, so tags stay bounded).
 * sysfs counters are u64s, read unsigned.
 */
public class PortCounterMetrics implements MeterBinder {

    private final RdmaResources resources;

    public PortCounterMetrics(RdmaResources resources) {
        this.resources = resources;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (RdmaResources.Named<DeviceContext> device : resources.resources(DeviceContext.class)) {
            DeviceContext context = device.resource();
            for (int port : resources.configuredPorts(device.name())) {
                for (String counter : context.portCounters(port).keySet()) {
                    FunctionCounter.builder("rdma.port.counter", context, c -> read(c, port, counter))
                            .description("Port counter as the device exposes it")
                            .tags("device", device.name(), "port", Integer.toString(port), "counter", counter)
                            .register(registry);
                }
            }
        }
    }

    private static double read(DeviceContext context, int port, String counter) {
        if (context.isClosed()) {
            return Double.NaN;
        }
        Long value = context.portCounters(port).get(counter);
        return value == null ? Double.NaN : Unsigned64.toDouble(value);
    }
}

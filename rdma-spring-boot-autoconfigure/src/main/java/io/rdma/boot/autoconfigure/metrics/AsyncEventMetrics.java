package io.rdma.boot.autoconfigure.metrics;

import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.DeviceContext;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code rdma_async_events_total{device,type}}: the async events ({@code ibv_get_async_event})
 * each device raised since start, by type ({@code port_err}, {@code qp_fatal}, ... as
 * {@code IBV_EVENT_*} names them). Every type is registered at zero when bound, a bounded 20 per
 * device, so that the first event of a type shows as an increase rather than as a new series.
 */
public class AsyncEventMetrics implements RdmaMeterBinder {

    private final RdmaResources resources;

    public AsyncEventMetrics(RdmaResources resources) {
        this.resources = resources;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (RdmaResources.Named<DeviceContext> device : resources.resources(DeviceContext.class)) {
            Map<AsyncEventType, Counter> counters = new EnumMap<>(AsyncEventType.class);
            for (AsyncEventType type : AsyncEventType.values()) {
                counters.put(type, Counter.builder("rdma.async.events").description("Async events the device raised")
                        .tags("device", device.resource().deviceName(), "type", type.name().toLowerCase(Locale.ROOT))
                        .register(registry));
            }
            // every type has its counter, made above
            device.resource().addAsyncEventListener(event -> Objects.requireNonNull(counters.get(event.type()))
                    .increment());
        }
    }
}

package io.rdma.boot.autoconfigure.metrics;

import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * A binder of RDMA meters. Its meters are counters, function counters and gauges that read their
 * state when a registry asks, and it may be bound to any number of registries: where the service
 * exports to Prometheus, these binders are bound once more, for {@link RdmaPrometheusCollector}.
 */
public interface RdmaMeterBinder extends MeterBinder {
}

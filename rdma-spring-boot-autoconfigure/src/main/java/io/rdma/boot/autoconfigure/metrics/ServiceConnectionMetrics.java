package io.rdma.boot.autoconfigure.metrics;

import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.resource.ConnectionPlan.ServicePlan;
import io.rdma.spring.resource.RdmaResources;

import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code rdma_service_instances{connection,service,state}} per outbound connection to a
 * discovered service: the instances the discovery client lists that advertise the listener
 * ({@code state="known"}) and those connected ({@code state="connected"}), read on scrape.
 *
 * <p>The connections are looked up when read, not when bound: they need the template, which
 * needs the observation registry, whose meter handler needs the registries this binds to.
 */
public class ServiceConnectionMetrics implements RdmaMeterBinder {

    private final RdmaResources resources;
    private final Supplier<RdmaConnections> connections;

    public ServiceConnectionMetrics(RdmaResources resources, Supplier<RdmaConnections> connections) {
        this.resources = resources;
        this.connections = connections;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (ServicePlan service : resources.connections().services()) {
            gauge(registry, service, "known", RdmaConnections.ServiceStatus::known);
            gauge(registry, service, "connected", RdmaConnections.ServiceStatus::connected);
        }
    }

    private void gauge(MeterRegistry registry, ServicePlan service, String state,
                       ToDoubleFunction<RdmaConnections.ServiceStatus> count) {
        Gauge.builder("rdma.service.instances", connections, declared -> declared.get().services().stream()
                        .filter(status -> status.name().equals(service.name())).mapToDouble(count).findFirst()
                        .orElse(Double.NaN))
                .description("Instances of the discovered service: known (listed, advertising the listener) and"
                        + " connected")
                .tags("connection", service.name(), "service", service.service(), "state", state).register(registry);
    }
}

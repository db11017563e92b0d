package io.rdma.boot.autoconfigure.metrics;

import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.micrometer.metrics.autoconfigure.MeterRegistryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Where the service exports to Prometheus: the RDMA binders' meters are served by an
 * {@link RdmaPrometheusCollector} registered with the Prometheus registry, and Micrometer's
 * Prometheus registry leaves them out, so that each family appears once. Other registries (OTLP,
 * ...) get the binders' meters as usual.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(PrometheusMeterRegistry.class)
class RdmaPrometheusConfiguration {

    /** Applied before the application's meter filters, so that it sees the names the binders gave. */
    @Bean
    MeterRegistryCustomizer<PrometheusMeterRegistry> rdmaPrometheusCollectorCustomizer(
            ObjectProvider<RdmaMeterBinder> binders, ObjectProvider<MeterFilter> filters) {
        return registry -> {
            RdmaPrometheusCollector collector = new RdmaPrometheusCollector(binders.orderedStream().toList(),
                    filters.orderedStream().toList(), registry.config().namingConvention());
            registry.config().meterFilter(MeterFilter.deny(collector::serves));
            registry.getPrometheusRegistry().register(collector);
        };
    }
}

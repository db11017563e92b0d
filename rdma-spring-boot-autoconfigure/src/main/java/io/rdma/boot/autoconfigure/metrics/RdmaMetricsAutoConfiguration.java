package io.rdma.boot.autoconfigure.metrics;

import io.rdma.boot.autoconfigure.RdmaAutoConfiguration;
import io.rdma.spring.completion.CompletionPollers;
import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.listener.ChannelReceivers;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.spring.template.RdmaTemplate;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.config.MeterFilter;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Micrometer binders for the provider, the devices and the declared resources, where Micrometer is
 * present; Boot binds every MeterBinder bean (for Prometheus, see {@link RdmaPrometheusConfiguration}). docs/observability.md lists every family they register.
 */
@AutoConfiguration(after = RdmaAutoConfiguration.class)
@ConditionalOnClass(MeterBinder.class)
@ConditionalOnBean(RdmaResources.class)
@Import(RdmaPrometheusConfiguration.class)
public final class RdmaMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    CompletionQueueMetrics rdmaCompletionQueueMetrics(CompletionPollers pollers) {
        return new CompletionQueueMetrics(pollers);
    }

    @Bean
    @ConditionalOnMissingBean
    CompletionCounterMetrics rdmaCompletionCounterMetrics(RdmaResources resources) {
        return new CompletionCounterMetrics(resources);
    }

    @Bean
    @ConditionalOnMissingBean
    FlowCounterMetrics rdmaFlowCounterMetrics(RdmaResources resources) {
        return new FlowCounterMetrics(resources);
    }

    @Bean
    @ConditionalOnMissingBean
    PortCounterMetrics rdmaPortCounterMetrics(RdmaResources resources) {
        return new PortCounterMetrics(resources);
    }

    @Bean
    @ConditionalOnMissingBean
    PortStateMetrics rdmaPortStateMetrics(RdmaResources resources) {
        return new PortStateMetrics(resources);
    }

    @Bean
    @ConditionalOnMissingBean
    QueuePairMetrics rdmaQueuePairMetrics(RdmaResources resources) {
        return new QueuePairMetrics(resources);
    }

    @Bean
    @ConditionalOnMissingBean
    MemoryMetrics rdmaMemoryMetrics(RdmaResources resources) {
        return new MemoryMetrics(resources);
    }

    @Bean
    @ConditionalOnMissingBean
    AsyncEventMetrics rdmaAsyncEventMetrics(RdmaResources resources) {
        return new AsyncEventMetrics(resources);
    }

    @Bean
    @ConditionalOnMissingBean
    ServiceConnectionMetrics rdmaServiceConnectionMetrics(RdmaResources resources,
                                                          ObjectProvider<RdmaConnections> connections) {
        return new ServiceConnectionMetrics(resources, connections::getObject);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean({RdmaTemplate.class, ChannelReceivers.class})
    DroppedMessageMetrics rdmaDroppedMessageMetrics(ObjectProvider<RdmaTemplate> template,
                                                    ObjectProvider<ChannelReceivers> receivers) {
        return new DroppedMessageMetrics(template::getObject, receivers::getObject);
    }

    @Bean
    MeterFilter rdmaTemplateObservationDescriptions() {
        return new TemplateObservationDescriptions();
    }

    @Bean
    @ConditionalOnMissingBean
    ProviderMetrics rdmaProviderMetrics(RdmaResources resources) {
        return new ProviderMetrics(resources);
    }
}

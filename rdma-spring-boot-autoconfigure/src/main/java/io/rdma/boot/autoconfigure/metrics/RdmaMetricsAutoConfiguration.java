package io.rdma.boot.autoconfigure.metrics;

import io.rdma.boot.autoconfigure.RdmaAutoConfiguration;
import io.rdma.spring.completion.CompletionPollers;
import io.rdma.spring.fabric.RdmaFabric;

import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** Micrometer binders for the fabric, where Micrometer is present; Boot binds every MeterBinder bean. */
@AutoConfiguration(after = RdmaAutoConfiguration.class)
@ConditionalOnClass(MeterBinder.class)
@ConditionalOnBean(RdmaFabric.class)
public final class RdmaMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    CompletionQueueMetrics rdmaCompletionQueueMetrics(CompletionPollers pollers) {
        return new CompletionQueueMetrics(pollers);
    }

    @Bean
    @ConditionalOnMissingBean
    CompletionCounterMetrics rdmaCompletionCounterMetrics(RdmaFabric fabric) {
        return new CompletionCounterMetrics(fabric);
    }

    @Bean
    @ConditionalOnMissingBean
    FlowCounterMetrics rdmaFlowCounterMetrics(RdmaFabric fabric) {
        return new FlowCounterMetrics(fabric);
    }

    @Bean
    @ConditionalOnMissingBean
    PortCounterMetrics rdmaPortCounterMetrics(RdmaFabric fabric) {
        return new PortCounterMetrics(fabric);
    }
}

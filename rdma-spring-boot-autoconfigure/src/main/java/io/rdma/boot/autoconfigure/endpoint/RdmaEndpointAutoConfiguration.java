package io.rdma.boot.autoconfigure.endpoint;

import io.rdma.boot.autoconfigure.RdmaAutoConfiguration;
import io.rdma.spring.completion.CompletionPollers;
import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.resource.RdmaResources;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The {@code rdma} actuator endpoint, where the actuator is present and the endpoint is exposed,
 * with its web extension (the completion counter write, refused unless
 * {@code rdma.endpoint.counter-writes.enabled}).
 */
@AutoConfiguration(after = RdmaAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(RdmaResources.class)
@ConditionalOnAvailableEndpoint(RdmaEndpoint.class)
@EnableConfigurationProperties(RdmaEndpointProperties.class)
public final class RdmaEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RdmaEndpoint rdmaEndpoint(RdmaResources resources, RdmaConnections connections, CompletionPollers pollers,
                              RdmaEndpointProperties properties) {
        return new RdmaEndpoint(resources, connections, pollers, properties.isShowKeys());
    }

    @Bean
    @ConditionalOnMissingBean
    RdmaEndpointWebExtension rdmaEndpointWebExtension(RdmaEndpoint endpoint, RdmaEndpointProperties properties) {
        return new RdmaEndpointWebExtension(endpoint, properties.getCounterWrites().isEnabled());
    }
}

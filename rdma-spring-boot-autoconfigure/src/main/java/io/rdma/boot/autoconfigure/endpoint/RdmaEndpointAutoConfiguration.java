package io.rdma.boot.autoconfigure.endpoint;

import io.rdma.boot.autoconfigure.RdmaAutoConfiguration;
import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.resource.RdmaResources;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** The {@code rdma} actuator endpoint, where the actuator is present and the endpoint is exposed. */
@AutoConfiguration(after = RdmaAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(RdmaResources.class)
@ConditionalOnAvailableEndpoint(RdmaEndpoint.class)
public final class RdmaEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RdmaEndpoint rdmaEndpoint(RdmaResources resources, RdmaConnections connections) {
        return new RdmaEndpoint(resources, connections);
    }
}

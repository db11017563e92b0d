package io.rdma.boot.autoconfigure.endpoint;

import io.rdma.boot.autoconfigure.RdmaAutoConfiguration;
import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.fabric.RdmaFabric;

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
@ConditionalOnBean(RdmaFabric.class)
@ConditionalOnAvailableEndpoint(RdmaEndpoint.class)
public final class RdmaEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RdmaEndpoint rdmaEndpoint(RdmaFabric fabric, RdmaConnections connections) {
        return new RdmaEndpoint(fabric, connections);
    }
}

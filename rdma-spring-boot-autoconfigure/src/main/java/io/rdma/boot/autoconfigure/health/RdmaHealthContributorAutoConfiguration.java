package io.rdma.boot.autoconfigure.health;

import io.rdma.boot.autoconfigure.RdmaAutoConfiguration;
import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.resource.RdmaResources;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/** The {@code rdma} health indicator, where Spring Boot's health support is present. */
@AutoConfiguration(after = RdmaAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(RdmaResources.class)
@ConditionalOnEnabledHealthIndicator("rdma")
public final class RdmaHealthContributorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "rdmaHealthIndicator")
    RdmaHealthIndicator rdmaHealthIndicator(RdmaResources resources, RdmaConnections connections) {
        return new RdmaHealthIndicator(resources, connections);
    }
}

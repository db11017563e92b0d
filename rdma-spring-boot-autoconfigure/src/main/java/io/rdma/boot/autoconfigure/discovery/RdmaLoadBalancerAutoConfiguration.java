package io.rdma.boot.autoconfigure.discovery;

import io.rdma.boot.autoconfigure.RdmaAutoConfiguration;
import io.rdma.spring.connection.RdmaInstanceChooser;
import io.rdma.spring.resource.RdmaResources;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.cloud.client.loadbalancer.LoadBalancerClient;
import org.springframework.context.annotation.Bean;

/**
 * Spring Cloud LoadBalancer chooses the instance that an outbound connection to one instance of a
 * service at a time ({@code service} with {@code queue-pair}) connects to, where the application
 * has a {@link LoadBalancerClient} (spring-cloud-starter-loadbalancer): the choice follows the
 * load-balancing configuration it gives its HTTP clients. Without one, the first instance listed
 * is taken.
 */
@AutoConfiguration(after = RdmaAutoConfiguration.class,
        afterName = "org.springframework.cloud.loadbalancer.config.BlockingLoadBalancerClientAutoConfiguration")
@ConditionalOnClass(LoadBalancerClient.class)
@ConditionalOnBean({RdmaResources.class, LoadBalancerClient.class})
public final class RdmaLoadBalancerAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RdmaInstanceChooser rdmaInstanceChooser(LoadBalancerClient loadBalancer,
                                            ObjectProvider<DiscoveryClient> discoveryClient) {
        return new LoadBalancerInstanceChooser(loadBalancer, discoveryClient);
    }
}

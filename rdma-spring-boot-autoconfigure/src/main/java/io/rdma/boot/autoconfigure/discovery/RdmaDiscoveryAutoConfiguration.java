package io.rdma.boot.autoconfigure.discovery;

import io.rdma.boot.autoconfigure.RdmaAutoConfiguration;
import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.connection.RdmaServiceDiscovery;
import io.rdma.spring.resource.RdmaResources;

import java.util.Map;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.cloud.client.discovery.event.HeartbeatEvent;
import org.springframework.cloud.client.discovery.event.InstancePreRegisteredEvent;
import org.springframework.cloud.client.serviceregistry.Registration;
import org.springframework.cloud.zookeeper.discovery.ZookeeperDiscoveryProperties;
import org.springframework.cloud.zookeeper.serviceregistry.ZookeeperRegistration;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Spring Cloud service discovery for RDMA, where Spring Cloud Commons is on the class path: the
 * outbound connections that name a service find its instances through the application's
 * {@link DiscoveryClient} and read them again on each discovery heartbeat, and the instance
 * advertises its RDMA listeners in the metadata it registers ({@link RdmaListenerMetadata}).
 * Without Spring Cloud nothing here applies.
 */
@AutoConfiguration(after = RdmaAutoConfiguration.class)
@ConditionalOnClass(DiscoveryClient.class)
@ConditionalOnBean(RdmaResources.class)
public final class RdmaDiscoveryAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RdmaServiceDiscovery rdmaServiceDiscovery(ObjectProvider<DiscoveryClient> discoveryClient) {
        return new DiscoveryClientServiceDiscovery(discoveryClient);
    }

    @Bean
    ApplicationListener<HeartbeatEvent> rdmaServiceRefreshOnHeartbeat(ObjectProvider<RdmaConnections> connections) {
        return heartbeat -> connections.ifAvailable(RdmaConnections::refreshServices);
    }

    @Bean
    ApplicationListener<InstancePreRegisteredEvent> rdmaListenerAdvertisement(RdmaResources resources,
                                                                              ObjectProvider<RdmaConnections> connections,
                                                                              ObjectProvider<RegistrationMetadata> metadata) {
        RegistrationMetadata writable = metadata.getIfAvailable(() -> RdmaDiscoveryAutoConfiguration::ownMetadata);
        return registering -> connections.ifAvailable(declared -> RdmaListenerMetadata.advertise(
                RdmaListenerMetadata.of(declared, resources), registering.getRegistration(), writable));
    }

    /**
     * The registration's own metadata; where it has none (null), an empty map that cannot be
     * written, so that advertising says the listeners are not advertised instead of failing.
     */
    private static Map<String, String> ownMetadata(Registration registration) {
        Map<String, String> metadata = registration.getMetadata();
        return metadata != null ? metadata : Map.of();
    }

    /**
     * Spring Cloud Zookeeper builds its registration only as it registers, from its discovery
     * properties' metadata map, which becomes the instance's: until then the registration's own
     * metadata is an empty map that cannot be written.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ZookeeperRegistration.class)
    static final class ZookeeperRegistrationMetadata {

        @Bean
        @ConditionalOnMissingBean
        RegistrationMetadata zookeeperRegistrationMetadata(ObjectProvider<ZookeeperDiscoveryProperties> properties) {
            return registration -> {
                ZookeeperDiscoveryProperties zookeeper = properties.getIfAvailable();
                return registration instanceof ZookeeperRegistration && zookeeper != null ? zookeeper.getMetadata()
                        : ownMetadata(registration);
            };
        }
    }
}

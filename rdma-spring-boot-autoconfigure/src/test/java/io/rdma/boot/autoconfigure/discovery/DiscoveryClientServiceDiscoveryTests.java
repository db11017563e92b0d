package io.rdma.boot.autoconfigure.discovery;

import io.rdma.spring.connection.ServiceInstanceEndpoint;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.cloud.client.DefaultServiceInstance;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;

import static org.assertj.core.api.Assertions.assertThat;

class DiscoveryClientServiceDiscoveryTests {

    private static final String SERVICE = "kv-store";

    /**
     * Spring Cloud lets an instance have no metadata at all ({@code ServiceInstance.getMetadata()}
     * is nullable): such an instance advertises no RDMA listener, and the others are still read.
     */
    @Test
    void anInstanceWithoutMetadataIsLeftOut() {
        ServiceInstance bare = new DefaultServiceInstance("bare", SERVICE, "10.0.0.1", 8080, false) {
            @Override
            public @Nullable Map<String, String> getMetadata() {
                return null;
            }
        };
        ServiceInstance advertising = new DefaultServiceInstance("kv-1", SERVICE, "10.0.0.2", 8080, false,
                Map.of(RdmaListenerMetadata.key("kv", "port"), "7481"));
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerSingleton("discoveryClient", new Listing(List.of(bare, advertising)));

        List<ServiceInstanceEndpoint> endpoints = new DiscoveryClientServiceDiscovery(
                beans.getBeanProvider(DiscoveryClient.class)).endpoints(SERVICE, "kv");

        assertThat(endpoints).containsExactly(new ServiceInstanceEndpoint("kv-1", "10.0.0.2", 7481));
    }

    /** A discovery client that lists {@code instances} for {@link #SERVICE}. */
    private record Listing(List<ServiceInstance> instances) implements DiscoveryClient {

        @Override
        public String description() {
            return "instances of " + SERVICE;
        }

        @Override
        public List<ServiceInstance> getInstances(String serviceId) {
            return serviceId.equals(SERVICE) ? instances : List.of();
        }

        @Override
        public List<String> getServices() {
            return List.of(SERVICE);
        }
    }
}

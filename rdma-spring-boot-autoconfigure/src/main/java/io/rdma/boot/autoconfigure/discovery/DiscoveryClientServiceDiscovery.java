package io.rdma.boot.autoconfigure.discovery;

import io.rdma.spring.connection.RdmaServiceDiscovery;
import io.rdma.spring.connection.ServiceInstanceEndpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;

/**
 * The instances of a service as Spring Cloud's {@link DiscoveryClient} knows them (Kubernetes,
 * Consul, Eureka, the simple one, or all of them through the composite client), each where its
 * metadata says its RDMA listener listens ({@link RdmaListenerMetadata}). An instance without the
 * listener's port in its metadata is not an RDMA peer and is left out.
 */
final class DiscoveryClientServiceDiscovery implements RdmaServiceDiscovery {

    private static final Log logger = LogFactory.getLog(DiscoveryClientServiceDiscovery.class);

    private final ObjectProvider<DiscoveryClient> discoveryClient;

    /** Looked up at each read: Spring Cloud's composite client, the primary one, may be made after this. */
    DiscoveryClientServiceDiscovery(ObjectProvider<DiscoveryClient> discoveryClient) {
        this.discoveryClient = discoveryClient;
    }

    @Override
    public List<ServiceInstanceEndpoint> endpoints(String service, String listener) {
        List<ServiceInstanceEndpoint> endpoints = new ArrayList<>();
        for (ServiceInstance instance : discoveryClient.getObject().getInstances(service)) {
            Map<String, String> advertised = instance.getMetadata();
            Map<String, String> metadata = advertised != null ? advertised : Map.of(); // a registry may give none
            String port = metadata.get(RdmaListenerMetadata.key(listener, "port"));
            String id = instanceId(instance);
            if (port == null) {
                logger.debug("Instance '" + id + "' of service '" + service + "' advertises no RDMA listener '"
                        + listener + "' (" + RdmaListenerMetadata.key(listener, "port") + ")");
                continue;
            }
            try {
                String address = metadata.getOrDefault(RdmaListenerMetadata.key(listener, "address"), instance.getHost());
                endpoints.add(new ServiceInstanceEndpoint(id, address, Integer.parseInt(port.trim())));
            } catch (NumberFormatException e) {
                logger.warn("Instance '" + id + "' of service '" + service + "' advertises RDMA listener '" + listener
                        + "' on port '" + port + "', which is not a number; it is left out");
            }
        }
        return endpoints;
    }

    /** The instance's id in the registry, or its host:port where the registry gives none. */
    static String instanceId(ServiceInstance instance) {
        return instance.getInstanceId() != null ? instance.getInstanceId() : instance.getHost() + ":" + instance.getPort();
    }
}

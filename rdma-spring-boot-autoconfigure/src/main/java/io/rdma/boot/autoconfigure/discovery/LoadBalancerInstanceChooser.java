package io.rdma.boot.autoconfigure.discovery;

import io.rdma.spring.connection.RdmaInstanceChooser;
import io.rdma.spring.connection.ServiceInstanceEndpoint;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.cloud.client.loadbalancer.LoadBalancerClient;

/**
 * The instance Spring Cloud LoadBalancer chooses, by the application's load-balancing
 * configuration for the service (round robin unless it configures another), among the service's
 * instances as Spring Cloud knows them; the choice is mapped by instance id onto the instances
 * that advertise the connection's RDMA listener. An instance that advertises none is no RDMA peer,
 * so LoadBalancer is asked again, at most as many times as the discovery client lists instances
 * (a round robin meets every one), and then the first instance advertising the listener is taken.
 */
final class LoadBalancerInstanceChooser implements RdmaInstanceChooser {

    private static final Log logger = LogFactory.getLog(LoadBalancerInstanceChooser.class);

    private final LoadBalancerClient loadBalancer;
    private final ObjectProvider<DiscoveryClient> discoveryClient;

    LoadBalancerInstanceChooser(LoadBalancerClient loadBalancer, ObjectProvider<DiscoveryClient> discoveryClient) {
        this.loadBalancer = loadBalancer;
        this.discoveryClient = discoveryClient;
    }

    @Override
    public ServiceInstanceEndpoint choose(String service, List<ServiceInstanceEndpoint> endpoints) {
        Map<String, ServiceInstanceEndpoint> advertising = new LinkedHashMap<>();
        endpoints.forEach(endpoint -> advertising.put(endpoint.instanceId(), endpoint));
        List<String> chosenWithout = new ArrayList<>();
        int instances = instanceCount(service, endpoints.size());
        for (int asked = 0; asked < instances; asked++) {
            ServiceInstance chosen = loadBalancer.choose(service);
            if (chosen == null) {
                break;
            }
            String id = DiscoveryClientServiceDiscovery.instanceId(chosen);
            ServiceInstanceEndpoint endpoint = advertising.get(id);
            if (endpoint != null) {
                logger.info("Spring Cloud LoadBalancer chose instance '" + id + "' of service '" + service
                        + "' for RDMA (" + endpoint.host() + ":" + endpoint.port() + ")");
                return endpoint;
            }
            chosenWithout.add(id);
        }
        ServiceInstanceEndpoint first = endpoints.getFirst();
        logger.info("Spring Cloud LoadBalancer chose no instance of service '" + service + "' that advertises the"
                + " RDMA listener (it chose " + chosenWithout + "); the first that does, '" + first.instanceId()
                + "', is taken");
        return first;
    }

    /** The instances LoadBalancer may choose among: those the discovery client lists, at least those advertising. */
    private int instanceCount(String service, int advertising) {
        DiscoveryClient client = discoveryClient.getIfAvailable();
        return client == null ? advertising : Math.max(advertising, client.getInstances(service).size());
    }
}

package io.rdma.boot.autoconfigure.discovery;

import io.rdma.spring.connection.ServiceInstanceEndpoint;

import java.net.URI;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.cloud.client.DefaultServiceInstance;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.cloud.client.loadbalancer.LoadBalancerClient;
import org.springframework.cloud.client.loadbalancer.LoadBalancerRequest;
import org.springframework.cloud.client.loadbalancer.Request;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How LoadBalancer's choice maps onto the instances that advertise the RDMA listener: service
 * {@code kv-store} has instances {@code a}, {@code b} and {@code c}, of which {@code c} advertises
 * no RDMA listener; a LoadBalancer client answers with the instances it is scripted to.
 */
class LoadBalancerInstanceChooserTests {

    private static final String SERVICE = "kv-store";
    private static final List<ServiceInstance> INSTANCES = List.of(instance("a"), instance("b"), instance("c"));
    private static final ServiceInstanceEndpoint A = new ServiceInstanceEndpoint("a", "10.0.0.1", 7471);
    private static final ServiceInstanceEndpoint B = new ServiceInstanceEndpoint("b", "10.0.0.2", 7471);

    @Test
    void theInstanceLoadBalancerChoosesIsConnectedTo() {
        ScriptedLoadBalancer loadBalancer = new ScriptedLoadBalancer("b");
        assertThat(chooser(loadBalancer).choose(SERVICE, List.of(A, B))).isEqualTo(B);
        assertThat(loadBalancer.asked).containsExactly(SERVICE);
    }

    /** An instance that advertises no RDMA listener is no peer: LoadBalancer is asked again. */
    @Test
    void aChoiceWithoutTheListenerIsMadeAgain() {
        ScriptedLoadBalancer loadBalancer = new ScriptedLoadBalancer("c", "b");
        assertThat(chooser(loadBalancer).choose(SERVICE, List.of(A, B))).isEqualTo(B);
        assertThat(loadBalancer.asked).hasSize(2);
    }

    /** Asked as many times as the service has instances, then the first one advertising the listener is taken. */
    @Test
    void afterAsManyChoicesAsInstancesTheFirstListedIsTaken() {
        ScriptedLoadBalancer loadBalancer = new ScriptedLoadBalancer("c", "c", "c", "b");
        assertThat(chooser(loadBalancer).choose(SERVICE, List.of(A, B))).isEqualTo(A);
        assertThat(loadBalancer.asked).hasSize(INSTANCES.size());
    }

    /** LoadBalancer knowing no instance (its list lags behind the discovery client's) is no failure. */
    @Test
    void noChoiceTakesTheFirstListed() {
        ScriptedLoadBalancer loadBalancer = new ScriptedLoadBalancer();
        assertThat(chooser(loadBalancer).choose(SERVICE, List.of(B, A))).isEqualTo(B);
        assertThat(loadBalancer.asked).hasSize(1);
    }

    private static LoadBalancerInstanceChooser chooser(LoadBalancerClient loadBalancer) {
        StaticListableBeanFactory beans = new StaticListableBeanFactory(Map.of("discoveryClient", new ListedInstances()));
        return new LoadBalancerInstanceChooser(loadBalancer, beans.getBeanProvider(DiscoveryClient.class));
    }

    private static ServiceInstance instance(String id) {
        return new DefaultServiceInstance(id, SERVICE, "host-" + id, 8080, false);
    }

    /** Lists a, b and c. */
    private static final class ListedInstances implements DiscoveryClient {

        @Override
        public String description() {
            return "a, b and c";
        }

        @Override
        public List<ServiceInstance> getInstances(String serviceId) {
            return serviceId.equals(SERVICE) ? INSTANCES : List.of();
        }

        @Override
        public List<String> getServices() {
            return List.of(SERVICE);
        }
    }

    /** Chooses the instances it was given, in order, and then none. */
    private static final class ScriptedLoadBalancer implements LoadBalancerClient {

        private final Deque<String> choices;
        final List<String> asked = new ArrayList<>();

        ScriptedLoadBalancer(String... choices) {
            this.choices = new ArrayDeque<>(Arrays.asList(choices));
        }

        @Override
        public @Nullable ServiceInstance choose(String serviceId) {
            asked.add(serviceId);
            String id = choices.poll();
            return id == null ? null : INSTANCES.stream().filter(instance -> instance.getInstanceId().equals(id))
                    .findFirst().orElseThrow();
        }

        @Override
        public <T> @Nullable ServiceInstance choose(String serviceId, Request<T> request) {
            return choose(serviceId);
        }

        @Override
        public <T> T execute(String serviceId, LoadBalancerRequest<T> request) {
            throw new UnsupportedOperationException("not a request's load balancer");
        }

        @Override
        public <T> T execute(String serviceId, ServiceInstance serviceInstance, LoadBalancerRequest<T> request) {
            throw new UnsupportedOperationException("not a request's load balancer");
        }

        @Override
        public URI reconstructURI(ServiceInstance instance, URI original) {
            throw new UnsupportedOperationException("not a request's load balancer");
        }
    }
}

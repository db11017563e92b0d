package io.rdma.spring.connection;

import java.util.List;

/**
 * Chooses the one instance of a discovered service that an outbound connection on a declared
 * queue pair ({@code service} with {@code queue-pair}) connects to: when the connection starts
 * following the service, and again whenever the chosen instance leaves it. The auto-configuration
 * asks Spring Cloud LoadBalancer where the application has it; without one, or for a test, the
 * {@linkplain #firstListed() first instance listed} is taken.
 */
@FunctionalInterface
public interface RdmaInstanceChooser {

    /**
     * One of {@code endpoints}: the instances of {@code service} that advertise the connection's
     * listener, in the discovery client's order, never empty. Called on the thread that follows
     * the service, outside any lock, so it may ask a registry or a load balancer.
     *
     * @throws RuntimeException when no choice can be made now: the connection waits for the next
     *         read of the service's instances and asks again
     */
    ServiceInstanceEndpoint choose(String service, List<ServiceInstanceEndpoint> endpoints);

    /** The first instance listed: the discovery client's order decides. */
    static RdmaInstanceChooser firstListed() {
        return (service, endpoints) -> endpoints.getFirst();
    }
}

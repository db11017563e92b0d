package io.rdma.spring.connection;

import java.util.List;

/**
 * Finds the instances of a service and where each one's RDMA listener accepts connections, for
 * the outbound connections that name a service instead of a host. The auto-configuration reads
 * them from Spring Cloud's {@code DiscoveryClient} (the instances' metadata advertises their
 * listeners); a test or an application without Spring Cloud may give its own.
 */
@FunctionalInterface
public interface RdmaServiceDiscovery {

    /**
     * The instances of {@code service} that advertise RDMA listener {@code listener}, in the
     * discovery client's order; instances that advertise no such listener are left out.
     *
     * @throws RuntimeException when the discovery client cannot be reached: the connections keep
     *         the instances they have until a later read succeeds
     */
    List<ServiceInstanceEndpoint> endpoints(String service, String listener);
}

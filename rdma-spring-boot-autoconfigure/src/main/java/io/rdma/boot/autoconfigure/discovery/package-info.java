/**
 * Spring Cloud service discovery for RDMA connections: instances found through the
 * {@code DiscoveryClient}, listeners advertised in the registration's metadata, and the one
 * instance a connection on a declared queue pair connects to chosen by Spring Cloud LoadBalancer.
 */
@NullMarked
package io.rdma.boot.autoconfigure.discovery;

import org.jspecify.annotations.NullMarked;

/**
 * Spring Cloud service discovery for RDMA connections: instances found through the
 * {@code DiscoveryClient}, listeners advertised in the registration's metadata.
 */
@NullMarked
package io.rdma.boot.autoconfigure.discovery;

import org.jspecify.annotations.NullMarked;

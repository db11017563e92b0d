package io.rdma.spring.connection;

/**
 * Where one instance of a discovered service accepts RDMA connections for a listener: its id in
 * the discovery client, and the address and port its listener advertises.
 */
public record ServiceInstanceEndpoint(String instanceId, String host, int port) {
}

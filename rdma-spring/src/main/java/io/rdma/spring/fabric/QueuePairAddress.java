package io.rdma.spring.fabric;

/**
 * The port a QP connects from and the pool its buffers come from ({@code null} when none).
 * No GID index: rdma_cm picks the GID from the connection's address.
 */
public record QueuePairAddress(int port, String memoryPool) {
}

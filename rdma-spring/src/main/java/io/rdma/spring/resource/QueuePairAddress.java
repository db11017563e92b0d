package io.rdma.spring.resource;

import org.jspecify.annotations.Nullable;

/**
 * The port a QP connects from and the pool its buffers come from ({@code null} when none).
 * No GID index: rdma_cm picks the GID from the connection's address.
 */
public record QueuePairAddress(int port, @Nullable String memoryPool) {
}

/**
 * The connections declared under {@code rdma.connections}: listeners that accept peers, outbound
 * connections that connect again when their queue pair fails, and the observers told when a
 * queue pair comes up or goes.
 */
@NullMarked
package io.rdma.spring.connection;

import org.jspecify.annotations.NullMarked;

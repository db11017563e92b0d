/**
 * Micrometer meters of RDMA under node_exporter's infiniband names with an {@code rdma_} prefix where it
 * has them: the provider in use, device and port state, port and hardware counters, and the declared
 * resources (completion queues, completion and flow counters, queue pairs, memory, async events, live
 * objects). docs/observability.md lists every family with its labels. The {@code device} label is
 * the name the provider lists the device by ({@code DeviceContext.deviceName()}), not its key under
 * {@code rdma.devices}, so that it matches node_exporter's, {@code ibv_devices}' and {@code rdma}'s.
 */
@NullMarked
package io.rdma.boot.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;

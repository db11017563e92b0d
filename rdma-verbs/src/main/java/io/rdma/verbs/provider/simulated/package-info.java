/**
 * The simulated fabric: a software RDMA device inside the JVM that moves real data between
 * registered memory and enforces the verbs rules (see {@code docs/simulated-fabric.md}).
 *
 * <p>This is the simulated provider's own public package. Its public types are the fabric's
 * user-facing configuration, {@link io.rdma.verbs.provider.simulated.DeviceSpec} (a device to
 * create) and {@link io.rdma.verbs.provider.simulated.SharedFabric} (a fabric to join with other
 * sessions of the JVM), both passed to
 * {@link io.rdma.verbs.api.Verbs#open(io.rdma.verbs.api.ProviderKind, java.util.List)},
 * and {@link io.rdma.verbs.provider.simulated.FabricControl} (fault injection, from
 * {@link io.rdma.verbs.api.Verbs#extension}), and the {@link java.util.ServiceLoader} entry
 * {@link io.rdma.verbs.provider.simulated.SimulatedProvider}; everything else is package-private.
 *
 * <p>Locking, in the only order locks are ever nested: a QP's send lock, then any QP's
 * receive lock (or an SRQ's lock), then CQ, channel and counter state, which are leaves.
 * Nothing holding a receive lock takes a send lock; a QP that must go to ERR because of
 * another QP's request is failed on the fabric's event thread, never inline.
 */
@NullMarked
package io.rdma.verbs.provider.simulated;

import org.jspecify.annotations.NullMarked;

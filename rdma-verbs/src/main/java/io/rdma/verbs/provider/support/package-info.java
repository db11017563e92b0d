/**
 * Code both providers share, not API and not part of the provider contract: the software
 * completion counter (the simulated fabric's, and the native provider's where the device has
 * none), the census of live objects behind {@link io.rdma.verbs.spi.ProviderSession#liveObjects()},
 * and the actions waiting for a peer's disconnect. Public only so that the two provider packages
 * can use it; an application never names these types, and neither the API nor the SPI depends
 * on them.
 */
@NullMarked
package io.rdma.verbs.provider.support;

import org.jspecify.annotations.NullMarked;

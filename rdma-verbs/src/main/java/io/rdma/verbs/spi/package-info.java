/**
 * What a provider implements. The API ({@code io.rdma.verbs.api}) owns lifetimes, ordering,
 * thread safety and send-queue accounting; a provider only creates, drives and destroys the
 * objects behind these handles. Each handle mirrors one libibverbs object
 * ({@code ibv_pd} → {@link io.rdma.verbs.spi.PdHandle}, ...). Handles are called with the
 * API's locks held: a handle's {@code destroy()} is called once, after every dependent
 * handle was destroyed, and never concurrently with another call on the same handle.
 *
 * <p>Besides the handles and the values they exchange, this package holds the one rule both
 * sides of it apply: which posted send WRs a completion retires
 * ({@link io.rdma.verbs.spi.PostedSendRing}), kept by the API's send-queue accounting and by the
 * native provider's completion path alike. Code only the providers share is in
 * {@code io.rdma.verbs.provider.support}.
 */
@NullMarked
package io.rdma.verbs.spi;

import org.jspecify.annotations.NullMarked;

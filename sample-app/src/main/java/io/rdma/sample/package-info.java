/**
 * The sample services on the RDMA starter: an echo RPC ({@link io.rdma.sample.EchoApplication}) and
 * a key-value store over one-sided verbs ({@link io.rdma.sample.KvServer}, {@link io.rdma.sample.KvClient}).
 */
@NullMarked
package io.rdma.sample;

import org.jspecify.annotations.NullMarked;

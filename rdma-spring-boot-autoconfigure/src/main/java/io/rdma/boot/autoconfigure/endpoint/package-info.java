/**
 * The {@code /actuator/rdma} endpoint: the provider, each device with its ports, declared
 * resources and their values, and the declared connections; over HTTP, the write operation that
 * sets a completion counter.
 */
@NullMarked
package io.rdma.boot.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;

/**
 * The {@code /actuator/rdma} endpoint: the provider, each device with its ports and declared
 * resources, and the declared connections.
 */
@NullMarked
package io.rdma.boot.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;

/**
 * The {@code rdma} health indicator: the state of the ports the configuration uses and of the
 * declared connections.
 */
@NullMarked
package io.rdma.boot.autoconfigure.health;

import org.jspecify.annotations.NullMarked;

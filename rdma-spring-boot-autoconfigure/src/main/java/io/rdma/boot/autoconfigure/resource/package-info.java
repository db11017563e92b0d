/**
 * The {@code rdma} properties read and checked into a plan, one bean registered per declared
 * resource, and the failure analyzers of an invalid configuration and of a resource the device
 * refused.
 */
@NullMarked
package io.rdma.boot.autoconfigure.resource;

import org.jspecify.annotations.NullMarked;

/**
 * Auto-configuration of the RDMA resources declared under the {@code rdma} properties, and of the
 * programming model's beans over it.
 */
@NullMarked
package io.rdma.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;

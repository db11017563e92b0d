/**
 * Micrometer meters of the declared resources: completions per completion queue, completion counters, flow
 * counters and port counters.
 */
@NullMarked
package io.rdma.boot.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;

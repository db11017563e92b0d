/**
 * Micrometer meters of the fabric: completions per completion queue, completion counters, flow
 * counters and port counters.
 */
@NullMarked
package io.rdma.boot.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;

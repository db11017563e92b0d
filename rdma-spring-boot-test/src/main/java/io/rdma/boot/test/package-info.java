/**
 * Test support for services on the RDMA starter: {@link io.rdma.boot.test.SimulatedRdma} runs a test
 * on the simulated fabric with its fault injection.
 */
@NullMarked
package io.rdma.boot.test;

import org.jspecify.annotations.NullMarked;

/**
 * The declared fabric as the programming model reads it: the checked plan, every created resource
 * with its declaration ({@link io.rdma.spring.fabric.RdmaFabric}), and the customizers of the
 * options a resource is created with.
 */
@NullMarked
package io.rdma.spring.fabric;

import org.jspecify.annotations.NullMarked;

/**
 * The declared resources as the programming model reads them: the checked plan, every created resource
 * with its declaration ({@link io.rdma.spring.resource.RdmaResources}), and the customizers of the
 * options a resource is created with.
 */
@NullMarked
package io.rdma.spring.resource;

import org.jspecify.annotations.NullMarked;

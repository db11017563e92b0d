/**
 * Plain Spring without Boot: {@link io.rdma.spring.config.EnableRdma} and the configuration it
 * imports, which makes the programming model's beans from the application's
 * {@code RdmaResources}.
 */
@NullMarked
package io.rdma.spring.config;

import org.jspecify.annotations.NullMarked;

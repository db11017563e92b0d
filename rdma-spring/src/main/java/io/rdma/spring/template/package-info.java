/**
 * {@link io.rdma.spring.template.RdmaTemplate}: sends, RDMA writes and reads and atomics on
 * declared queue pairs by name, as futures, waiting for send-queue room rather than failing;
 * each operation observed through Micrometer's Observation API
 * ({@link io.rdma.spring.template.RdmaTemplateObservation}).
 */
@NullMarked
package io.rdma.spring.template;

import org.jspecify.annotations.NullMarked;

/**
 * Typed messages: the payload of an RDMA message, bare bytes without a content type, converted to
 * and from the values an application sends and receives through Spring's
 * {@link org.springframework.messaging.converter.MessageConverter} contract.
 */
@NullMarked
package io.rdma.spring.convert;

import org.jspecify.annotations.NullMarked;

/**
 * What happens to the RDMA resources, as Spring application events an application can
 * {@code @EventListener} on: every async event of a declared device with the declared name of
 * the resource it concerns, every port state change, and every state change of a declared
 * connection or of a listener's peer.
 */
@NullMarked
package io.rdma.spring.event;

import org.jspecify.annotations.NullMarked;

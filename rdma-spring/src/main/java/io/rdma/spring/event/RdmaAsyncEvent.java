package io.rdma.spring.event;

import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.ResourceKind;

import org.jspecify.annotations.Nullable;

/**
 * An async event of a declared device ({@code ibv_get_async_event}, verbs manual §13.1), published
 * as a Spring application event on the provider's event thread: a listener that blocks holds up
 * the device's next events, so hand long work to another thread ({@code @Async}).
 *
 * @param type         the event, as {@code enum ibv_event_type} names it ({@code CQ_ERR},
 *                     {@code QP_FATAL}, {@code SRQ_LIMIT_REACHED}, {@code PORT_ERR}, ...)
 * @param device       the device's name under {@code rdma.devices}
 * @param port         the port of a port event ({@link AsyncEventType#isPortEvent()}), numbered
 *                     from 1; 0 for an event about a resource or the whole device
 * @param resourceName the name the configuration gives the resource the event concerns (the
 *                     queue pair, completion queue or shared receive queue); {@code null} for
 *                     port and device events, and for resources the configuration does not
 *                     declare (the queue pairs a listener creates for its peers)
 * @param resourceKind the kind of that resource; {@code null} for port and device events
 */
public record RdmaAsyncEvent(AsyncEventType type, String device, int port, @Nullable String resourceName,
                             @Nullable ResourceKind resourceKind) {
}

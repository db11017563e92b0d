package io.rdma.verbs.api;

/**
 * {@code struct ibv_async_event} (verbs manual §13.1): the resource it concerns, or the port number
 * for port events. {@code resource} is {@code null} for port and device events.
 */
public record AsyncEvent(AsyncEventType type, VerbsResource resource, int portNumber) {
}

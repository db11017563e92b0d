package io.rdma.verbs.api;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_async_event} (verbs manual §13.1): the resource it concerns, or the port number
 * for port events. {@code resource} is {@code null} for port and device events.
 *
 * <p>Immutable; the resource it names is thread-safe.
 */
public record AsyncEvent(AsyncEventType type, @Nullable VerbsResource resource, int portNumber) {
}

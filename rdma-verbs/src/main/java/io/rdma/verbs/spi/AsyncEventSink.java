package io.rdma.verbs.spi;

import io.rdma.verbs.api.AsyncEventType;

import org.jspecify.annotations.Nullable;

/**
 * Where a provider delivers {@code ibv_get_async_event} results. {@code element} is the
 * handle the event concerns (a {@link QpHandle}, {@link CqHandle}, {@link SrqHandle}) or
 * {@code null} for port and device events, which carry {@code port}.
 */
@FunctionalInterface
public interface AsyncEventSink {
    void deliver(AsyncEventType type, @Nullable Object element, int port);
}

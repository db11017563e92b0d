package io.rdma.verbs.api;

/**
 * Receives a device context's async events; called on the provider's event thread, never on a
 * post/poll path. Events of one context arrive one at a time, on that thread; adding and removing
 * listeners is thread-safe.
 */
@FunctionalInterface
public interface AsyncEventListener {
    void onEvent(AsyncEvent event);
}

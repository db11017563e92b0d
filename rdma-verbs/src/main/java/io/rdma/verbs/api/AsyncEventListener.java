package io.rdma.verbs.api;

/** Receives a device context's async events; called on the provider's event thread, never on a post/poll path. */
@FunctionalInterface
public interface AsyncEventListener {
    void onEvent(AsyncEvent event);
}

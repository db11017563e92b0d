package io.rdma.verbs.api;

/**
 * A resource was used after it (or a parent it depends on) was closed. Thrown instead of
 * touching a destroyed native object, which would crash the JVM.
 *
 * <p>Immutable once thrown, like any exception; it may be handed between threads.
 */
public final class ResourceClosedException extends IllegalStateException {

    public ResourceClosedException(String resource) {
        super(resource + " is closed; it (or a resource it depends on) was closed before this use");
    }
}

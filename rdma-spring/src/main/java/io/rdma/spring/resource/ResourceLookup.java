package io.rdma.spring.resource;

import io.rdma.verbs.api.Verbs;

import org.jspecify.annotations.Nullable;

/**
 * The beans a resource is created from: the provider's device list, the resources declared
 * before it, and the application's {@link RdmaCustomizer}s.
 */
public interface ResourceLookup {

    Verbs verbs();

    <T> T resource(String name, Class<T> type);

    /**
     * {@code options}, as every {@link RdmaCustomizer} of resource {@code name} whose options type
     * is {@code optionsType} adjusts them, in bean order; {@code options} itself when none does;
     * {@code null} when one of them returned {@code null}, which the caller reports.
     */
    <T> @Nullable T customize(String name, Class<T> optionsType, T options);
}

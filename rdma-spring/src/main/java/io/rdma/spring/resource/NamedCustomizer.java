package io.rdma.spring.resource;

import io.rdma.verbs.api.ResourceKind;

import java.util.Objects;
import java.util.function.UnaryOperator;

/** The customizer {@link RdmaCustomizer}'s factories make: one function, for one named resource. */
record NamedCustomizer<T>(ResourceKind kind, Class<T> optionsType, String name, UnaryOperator<T> customizer)
        implements RdmaCustomizer<T> {

    NamedCustomizer {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(customizer, "customizer");
    }

    @Override
    public T customize(T options) {
        return customizer.apply(options);
    }
}

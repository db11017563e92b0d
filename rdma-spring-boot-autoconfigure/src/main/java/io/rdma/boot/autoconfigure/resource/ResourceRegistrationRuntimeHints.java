package io.rdma.boot.autoconfigure.resource;

import io.rdma.boot.autoconfigure.RdmaProperties;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

/**
 * What {@link RdmaResourceRegistrar} reads reflectively at startup, for an application compiled
 * ahead of time (registered in {@code META-INF/spring/aot.factories}):
 * <ul>
 * <li>{@link RdmaProperties} and every class nested in it, which the registrar binds with a
 * {@code Binder} of its own and {@link KnownRdmaKeys} introspects. It is not a
 * {@code @ConfigurationProperties} bean (the resources' definitions need the properties before
 * any bean exists), so Boot's hints for such beans do not cover it.</li>
 * <li>The configuration metadata, from which {@link KnownRdmaKeys} learns which classes bind
 * under {@code rdma}.</li>
 * </ul>
 * The {@code @RdmaListener} methods are registered by the annotation itself ({@code @Reflective}).
 */
final class ResourceRegistrationRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        BindableRuntimeHintsRegistrar.forTypes(RdmaProperties.class).registerHints(hints, classLoader);
        hints.resources().registerPattern(KnownRdmaKeys.METADATA);
    }
}

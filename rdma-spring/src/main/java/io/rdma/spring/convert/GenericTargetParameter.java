package io.rdma.spring.convert;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.util.ReflectionUtils;

/**
 * A generic target type, such as {@code List<Greeting>}, dressed as the {@link MethodParameter}
 * that Spring's converters take as their conversion hint: {@code AbstractMessageConverter} learns
 * a type's generic arguments from a method parameter only (Spring's own
 * {@code InvocableHandlerMethod} describes an asynchronous result the same way).
 */
final class GenericTargetParameter extends MethodParameter {

    /** The method whose single parameter stands in; its own type is never looked at. */
    private static final Method STAND_IN = Objects.requireNonNull(
            ReflectionUtils.findMethod(GenericTargetParameter.class, "target", Object.class));

    private final Type type;
    private final Class<?> rawType;

    GenericTargetParameter(Type type, Class<?> rawType) {
        super(STAND_IN, 0);
        this.type = type;
        this.rawType = rawType;
    }

    @SuppressWarnings("unused")
    private static void target(Object value) {
    }

    @Override
    public Class<?> getParameterType() {
        return rawType;
    }

    @Override
    public Type getGenericParameterType() {
        return type;
    }

    @Override
    public GenericTargetParameter clone() {
        return new GenericTargetParameter(type, rawType);
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof GenericTargetParameter parameter && parameter.type.equals(type)
                && parameter.getNestingLevel() == getNestingLevel();
    }

    @Override
    public int hashCode() {
        return 31 * type.hashCode() + getNestingLevel();
    }
}

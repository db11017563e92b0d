package io.rdma.sample;

import io.rdma.spring.template.RdmaOperations;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

import org.jspecify.annotations.Nullable;

/**
 * The application's {@link RdmaOperations}, with each call shown first to a test's interception,
 * which may answer it in its place (a fault it stands for) or let it through (null), having done
 * what it must before (a fault it injects).
 */
final class InterceptedOperations {

    /** What a test does with a call: its result in place of the template's, or null to let it through. */
    @FunctionalInterface
    interface Interception {
        @Nullable Object intercept(Method method, Object[] arguments);
    }

    private InterceptedOperations() {
    }

    static RdmaOperations of(RdmaOperations operations, Interception interception) {
        return (RdmaOperations) Proxy.newProxyInstance(InterceptedOperations.class.getClassLoader(),
                new Class<?>[] {RdmaOperations.class}, (proxy, method, arguments) -> {
                    Object answered = interception.intercept(method, arguments);
                    if (answered != null) {
                        return answered;
                    }
                    try {
                        return method.invoke(operations, arguments);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}

package io.rdma.spring.listener;

import java.lang.reflect.Method;

/**
 * An {@link RdmaListener} method whose signature cannot be served: found when the method is
 * adapted, at start, rather than at its first message. The message names the method, the
 * parameter or return type at fault, and what a listener method may declare.
 */
public class InvalidListenerMethodException extends IllegalStateException {

    private final Method method;

    public InvalidListenerMethodException(Method method, String problem) {
        super("@RdmaListener method " + method.toGenericString() + " cannot be called: " + problem);
        this.method = method;
    }

    /** The method at fault. */
    public Method method() {
        return method;
    }
}

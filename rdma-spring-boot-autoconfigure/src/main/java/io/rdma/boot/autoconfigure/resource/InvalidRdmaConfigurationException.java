package io.rdma.boot.autoconfigure.resource;

import org.jspecify.annotations.Nullable;

/**
 * The {@code rdma} configuration asks for something that cannot be created: a reference to a
 * resource that is not declared, a size out of range, a value that is not one of the allowed
 * names, or a combination libibverbs refuses. Carries the property path, what is wrong and
 * what to do, for {@link InvalidRdmaConfigurationFailureAnalyzer}.
 */
public class InvalidRdmaConfigurationException extends RuntimeException {

    private final String property;
    private final String problem;
    private final String action;

    public InvalidRdmaConfigurationException(String property, String problem, String action) {
        this(property, problem, action, null);
    }

    public InvalidRdmaConfigurationException(String property, String problem, String action,
                                             @Nullable Throwable cause) {
        super("Invalid RDMA configuration at '" + property + "': " + problem, cause);
        this.property = property;
        this.problem = problem;
        this.action = action;
    }

    /** The full property path, e.g. {@code rdma.devices.rxe0.protection-domains.pd0.queue-pairs.rpc.send-cq}. */
    public String property() {
        return property;
    }

    public String problem() {
        return problem;
    }

    public String action() {
        return action;
    }
}

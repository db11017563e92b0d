package io.rdma.boot.autoconfigure.resource;

import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.VerbsException;

import java.util.Locale;
import java.util.Objects;

/**
 * A verb failed while a declared resource was created (for example {@code ibv_create_qp}
 * with ENOMEM). Names the resource, the property that declares it and the verb's own error;
 * everything created before it has been destroyed again, in reverse order, by the time this
 * reaches {@link RdmaResourceCreationFailureAnalyzer}.
 */
public class RdmaResourceCreationException extends RuntimeException {

    private final String resourceName;
    private final ResourceKind kind;
    private final String property;

    public RdmaResourceCreationException(String resourceName, ResourceKind kind, String property, VerbsException cause) {
        super("Creating " + describe(kind) + " '" + resourceName + "' declared at '" + property + "' failed: "
                + cause.getMessage(), cause);
        this.resourceName = resourceName;
        this.kind = kind;
        this.property = property;
    }

    static String describe(ResourceKind kind) {
        return kind.name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    public String resourceName() {
        return resourceName;
    }

    public ResourceKind kind() {
        return kind;
    }

    public String property() {
        return property;
    }

    /** The verb's failure: verb, errno and the verbs manual's advice. */
    public VerbsException verbsFailure() {
        return (VerbsException) Objects.requireNonNull(getCause()); // the constructor's
    }
}

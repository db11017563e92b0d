package io.rdma.boot.autoconfigure.resource;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.VerbsException;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a verb that failed while creating a declared resource: which resource, which property, which verb and errno. */
class RdmaResourceCreationFailureAnalyzer extends AbstractFailureAnalyzer<RdmaResourceCreationException> {

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, RdmaResourceCreationException cause) {
        VerbsException failure = cause.verbsFailure();
        String description = "Creating the RDMA " + RdmaResourceCreationException.describe(cause.kind()) + " '"
                + cause.resourceName() + "' failed; the resources created before it were destroyed again.\n\n"
                + "    Property: " + cause.property() + "\n    Verb:     " + failure.verb() + "\n    Errno:    "
                + failure.errno() + " (" + failure.errnoCode() + ", " + failure.errno().description() + ")\n"
                + "    Detail:   " + failure.getMessage() + "\n";
        return new FailureAnalysis(description, action(cause, failure), cause);
    }

    private static String action(RdmaResourceCreationException cause, VerbsException failure) {
        if (failure.advice() != null && !failure.advice().isEmpty()) {
            return failure.advice() + " (see '" + cause.property() + "').";
        }
        if (failure.errno() == Errno.ENOMEM || failure.errno() == Errno.ENOSPC) {
            return "The device is out of resources: lower the sizes under '" + cause.property()
                    + "', declare fewer resources, or free resources held by other processes on the device.";
        }
        return "Check the settings under '" + cause.property() + "' against the device's limits (ibv_devinfo -v).";
    }
}

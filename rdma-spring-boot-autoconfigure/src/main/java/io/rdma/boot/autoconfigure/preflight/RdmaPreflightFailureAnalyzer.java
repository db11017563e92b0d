package io.rdma.boot.autoconfigure.preflight;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a failed preflight check: which check, which property, what was found, which verb would fail and how. */
class RdmaPreflightFailureAnalyzer extends AbstractFailureAnalyzer<RdmaPreflightException> {

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, RdmaPreflightException cause) {
        String description = "The RDMA preflight check '" + cause.check() + "' failed: the service would fail at its"
                + " first use of the device.\n\n    Property: " + cause.property() + "\n    Found:    " + cause.found()
                + "\n    Verb:     " + cause.verb() + " would fail with " + cause.errno() + " (" + cause.errno().code()
                + ", " + cause.errno().description() + ")\n";
        return new FailureAnalysis(description, cause.action(), cause);
    }
}

package io.rdma.boot.autoconfigure.connection;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a declared connection that did not come up: which one, to where, after how many attempts. */
class RdmaConnectionFailureAnalyzer extends AbstractFailureAnalyzer<RdmaConnectionException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RdmaConnectionException cause) {
        String description = "The RDMA connection '" + cause.connection() + "' could not be established.\n\n"
                + "    Property: " + cause.property() + "\n    Peer:     " + cause.peer() + "\n    Attempts: "
                + cause.attempts() + "\n    Reason:   " + cause.getCause().getMessage() + "\n";
        return new FailureAnalysis(description, "Start the peer that listens on " + cause.peer() + " first, or raise "
                + cause.property() + ".timeout and .retries.", cause);
    }
}

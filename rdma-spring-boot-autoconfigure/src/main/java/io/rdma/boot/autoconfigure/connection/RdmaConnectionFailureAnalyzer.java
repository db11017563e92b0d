package io.rdma.boot.autoconfigure.connection;

import io.rdma.spring.connection.RdmaConnectionException;
import io.rdma.verbs.api.VerbsException;

import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a declared connection that did not come up: which one, the property, the verb and errno, and what to do. */
class RdmaConnectionFailureAnalyzer extends AbstractFailureAnalyzer<RdmaConnectionException> {

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, RdmaConnectionException cause) {
        StringBuilder description = new StringBuilder("The RDMA connection '").append(cause.connection())
                .append("' could not be established.\n\n    Property: ").append(cause.property())
                .append("\n    Peer:     ").append(cause.peer()).append("\n    Attempts: ").append(cause.attempts());
        cause.verbsFailure().ifPresent(failure -> description.append("\n    Verb:     ").append(failure.verb())
                .append("\n    Errno:    ").append(failure.errno()).append(" (").append(failure.errnoCode())
                .append(", ").append(failure.errno().description()).append(")"));
        // an RdmaConnectionException always has the failure of the last attempt as its cause
        description.append("\n    Reason:   ").append(Objects.requireNonNull(cause.getCause()).getMessage())
                .append("\n");
        return new FailureAnalysis(description.toString(), action(cause), cause);
    }

    private static String action(RdmaConnectionException cause) {
        VerbsException failure = cause.verbsFailure().orElse(null);
        if (failure == null) {
            return "Check " + cause.property() + ".";
        }
        return switch (failure.errno()) {
            case ECONNREFUSED, ETIMEDOUT -> "Start the listener " + cause.peer() + " first, check " + cause.property()
                    + " and the port, or allow more time with the connection's timeout, retries and backoff.";
            case EHOSTUNREACH -> "Set " + cause.property() + " to the IPv4 address of an RDMA port of the peer"
                    + " (its RoCE GID, or IPoIB address).";
            case EADDRINUSE -> "Choose another port in " + cause.property() + ", or 0 to let the connection"
                    + " manager pick one; another listener holds this one.";
            case EADDRNOTAVAIL -> "Set " + cause.property() + " to 0.0.0.0 or to the IPv4 address of one of the"
                    + " device's ports.";
            case EOPNOTSUPP -> "This provider has no connection manager: remove rdma.connections and exchange"
                    + " QueuePairEndpoints out of band, or run on the native or simulated provider.";
            default -> (failure.advice() != null ? failure.advice() + " " : "") + "(see " + cause.property() + ").";
        };
    }
}

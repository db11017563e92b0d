package io.rdma.boot.autoconfigure.naming;

import io.rdma.spring.naming.UnknownRdmaNameException;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a name written in code that names nothing declared: where it was written, the declared
 * name it was most likely meant to be, every declared name of its kind, and what to correct or
 * declare. Found anywhere in the cause chain: a check made as a {@code SmartLifecycle} starts
 * reaches Boot wrapped in "Failed to start bean".
 */
class UnknownRdmaNameFailureAnalyzer extends AbstractFailureAnalyzer<UnknownRdmaNameException> {

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, UnknownRdmaNameException cause) {
        String description = "The " + cause.kind() + " '" + cause.name() + "' is not declared."
                + (cause.nearest() != null ? " Did you mean '" + cause.nearest() + "'?" : "")
                + "\n\n    Site:     " + cause.site()
                + "\n    Declared: " + (cause.declared().isEmpty() ? "none" : cause.declared())
                + " (in " + cause.declaredIn() + ")\n";
        return new FailureAnalysis(description, cause.action(), cause);
    }
}

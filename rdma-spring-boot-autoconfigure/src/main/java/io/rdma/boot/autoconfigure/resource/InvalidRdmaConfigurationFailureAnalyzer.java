package io.rdma.boot.autoconfigure.resource;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports an invalid {@code rdma} configuration by its property path, with what to change. */
class InvalidRdmaConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidRdmaConfigurationException> {

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, InvalidRdmaConfigurationException cause) {
        String description = "The RDMA configuration is invalid.\n\n    Property: " + cause.property()
                + "\n    Problem:  " + cause.problem() + "\n";
        return new FailureAnalysis(description, cause.action(), cause);
    }
}

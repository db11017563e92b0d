package io.rdma.spring.template;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observations of {@link RdmaTemplate} operations; a bean of this type
 * replaces {@link DefaultRdmaTemplateObservationConvention} (extend that to add to its tags).
 */
public interface RdmaTemplateObservationConvention extends ObservationConvention<RdmaOperationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof RdmaOperationContext;
    }
}

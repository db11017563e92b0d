package io.rdma.boot.autoconfigure.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;

/**
 * Descriptions for the meters Micrometer's observation handler makes of {@code RdmaTemplate}'s
 * observations ({@code rdma.template.operations} and its {@code .active} long task timer): the
 * handler gives them none, and Prometheus's linter rejects a family without help text.
 */
final class TemplateObservationDescriptions implements MeterFilter {

    static final String OPERATIONS = "rdma.template.operations";
    static final String ACTIVE = OPERATIONS + ".active";

    @Override
    public Meter.Id map(Meter.Id id) {
        if (id.getDescription() != null) {
            return id;
        }
        String description = switch (id.getName()) {
            case OPERATIONS -> "RdmaTemplate operations from call to completion, by queue pair, operation and outcome";
            case ACTIVE -> "RdmaTemplate operations called and not yet completed, by queue pair and operation";
            default -> null;
        };
        return description == null ? id
                : new Meter.Id(id.getName(), Tags.of(id.getTagsAsIterable()), id.getBaseUnit(), description, id.getType());
    }
}

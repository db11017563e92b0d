package io.rdma.spring.template;

import io.rdma.verbs.api.SendOpcode;

import java.util.Locale;
import java.util.concurrent.CancellationException;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

import org.jspecify.annotations.Nullable;

/**
 * Observes each {@link RdmaTemplate} operation as {@value #NAME} (a timer named so, in seconds,
 * where a meter handler is registered) tagged with the
 * {@link RdmaTemplateObservation.LowCardinalityKeyNames}, and names its span
 * {@code "<operation> <queue pair>"}.
 */
public class DefaultRdmaTemplateObservationConvention implements RdmaTemplateObservationConvention {

    public static final DefaultRdmaTemplateObservationConvention INSTANCE = new DefaultRdmaTemplateObservationConvention();

    /** Plural, as Spring's observations are named, and without a unit or type word: Prometheus adds {@code _seconds}. */
    static final String NAME = "rdma.template.operations";

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(RdmaOperationContext context) {
        return operation(context.opcode()) + " " + context.declaration();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(RdmaOperationContext context) {
        KeyValues tags = KeyValues.of(
                KeyValue.of(RdmaTemplateObservation.LowCardinalityKeyNames.QUEUE_PAIR, context.declaration()),
                KeyValue.of(RdmaTemplateObservation.LowCardinalityKeyNames.OPERATION, operation(context.opcode())));
        // Asked again when the observation stops: only then is there an outcome to tag.
        return context.completed()
                ? tags.and(KeyValue.of(RdmaTemplateObservation.LowCardinalityKeyNames.OUTCOME, outcome(context.failure())))
                : tags;
    }

    /** The {@code rdma.operation} tag of {@code opcode}. */
    protected String operation(SendOpcode opcode) {
        return switch (opcode) {
            case SEND -> "send";
            case SEND_WITH_IMM -> "send_with_imm";
            case RDMA_WRITE -> "write";
            case RDMA_WRITE_WITH_IMM -> "write_with_imm";
            case RDMA_READ -> "read";
            case ATOMIC_CMP_AND_SWP -> "compare_and_swap";
            case ATOMIC_FETCH_AND_ADD -> "fetch_and_add";
        };
    }

    /** The {@code outcome} tag of an operation whose future completed with {@code failure} (null: success). */
    protected String outcome(@Nullable Throwable failure) {
        return switch (failure) {
            case null -> "success";
            case RdmaOperationException completedInError -> completedInError.status().name().toLowerCase(Locale.ROOT);
            case SendQueueFullException noRoom -> "send_queue_full";
            case CancellationException cancelled -> "cancelled";
            default -> "error";
        };
    }
}

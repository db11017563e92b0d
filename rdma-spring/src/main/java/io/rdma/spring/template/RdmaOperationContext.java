package io.rdma.spring.template;

import io.rdma.verbs.api.SendOpcode;

import io.micrometer.observation.Observation;

import org.jspecify.annotations.Nullable;

/**
 * What an observation of one {@link RdmaTemplate} operation knows: the queue pair it was made on,
 * the declaration that queue pair comes from, its verb, and, once its future completed, how.
 */
public class RdmaOperationContext extends Observation.Context {

    private final String queuePair;
    private final String declaration;
    private final SendOpcode opcode;
    private boolean completed;
    private @Nullable Throwable failure;

    public RdmaOperationContext(String queuePair, String declaration, SendOpcode opcode) {
        this.queuePair = queuePair;
        this.declaration = declaration;
        this.opcode = opcode;
    }

    /** The name the operation was made on: a declared queue pair, or a peer's ({@code <listener>#<n>}). */
    public String queuePair() {
        return queuePair;
    }

    /**
     * The declared queue pair, or for a peer's queue pair the declared prototype it was created
     * from: one of the names the configuration holds, however many peers come and go.
     */
    public String declaration() {
        return declaration;
    }

    /** The verb the operation posted. */
    public SendOpcode opcode() {
        return opcode;
    }

    /** Whether the operation's future has completed; until then it has no outcome. */
    public boolean completed() {
        return completed;
    }

    /**
     * What failed the operation's future ({@link RdmaOperationException}, {@link SendQueueFullException},
     * a {@code CancellationException}, ...), or null if it succeeded or has not completed.
     */
    public @Nullable Throwable failure() {
        return failure;
    }

    /** The operation's future completed, with {@code failure} unless it succeeded. */
    void complete(@Nullable Throwable failure) {
        this.completed = true;
        this.failure = failure;
    }
}

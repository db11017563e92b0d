package io.rdma.spring.connection;

import io.rdma.verbs.api.VerbsException;

import java.util.Optional;

/**
 * A declared listener could not listen, or a declared outbound connection could not connect
 * within its timeout and retries. Names the property to change; the cause is the last attempt's
 * failure, usually a {@link VerbsException} naming the verb and errno.
 */
public class RdmaConnectionException extends RuntimeException {

    private final String connection;
    private final String property;
    private final String peer;
    private final int attempts;

    public RdmaConnectionException(String connection, String property, String peer, int attempts, Exception cause) {
        super("RDMA connection '" + connection + "' (" + property + ") " + peer + " failed after " + attempts
                + (attempts == 1 ? " attempt: " : " attempts: ") + cause.getMessage(), cause);
        this.connection = connection;
        this.property = property;
        this.peer = peer;
        this.attempts = attempts;
    }

    /** The declared name of the listener or outbound connection. */
    public String connection() {
        return connection;
    }

    /** The property to change, e.g. {@code rdma.connections.outbound.backend.host}. */
    public String property() {
        return property;
    }

    /** What was attempted: "to 10.0.0.1:7471" or "listening on 0.0.0.0:7471". */
    public String peer() {
        return peer;
    }

    public int attempts() {
        return attempts;
    }

    /** The verb that failed last, with its errno, when the failure came from the connection manager. */
    public Optional<VerbsException> verbsFailure() {
        return getCause() instanceof VerbsException failure ? Optional.of(failure) : Optional.empty();
    }
}

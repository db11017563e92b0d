package io.rdma.boot.autoconfigure.connection;

/** A declared connection could not be brought up within its timeout and retries. */
public class RdmaConnectionException extends RuntimeException {

    private final String connection;
    private final String property;
    private final String peer;
    private final int attempts;

    public RdmaConnectionException(String connection, String property, String peer, int attempts, Exception cause) {
        super("RDMA connection '" + connection + "' (" + property + ") to " + peer + " failed after " + attempts
                + " attempts: " + cause.getMessage(), cause);
        this.connection = connection;
        this.property = property;
        this.peer = peer;
        this.attempts = attempts;
    }

    public String connection() {
        return connection;
    }

    public String property() {
        return property;
    }

    public String peer() {
        return peer;
    }

    public int attempts() {
        return attempts;
    }
}

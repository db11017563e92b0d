package io.rdma.boot.autoconfigure.preflight;

import io.rdma.verbs.api.Errno;

/**
 * A startup check found the host or the device in a state where a verb will fail: the check,
 * the property whose configuration it concerns, what was found, the verb that would fail and
 * its errno, and what to do, for {@link RdmaPreflightFailureAnalyzer}.
 */
public class RdmaPreflightException extends RuntimeException {

    private final String check;
    private final String property;
    private final String found;
    private final String verb;
    private final Errno errno;
    private final String action;

    public RdmaPreflightException(String check, String property, String found, String verb, Errno errno,
                                  String action) {
        super("RDMA preflight check '" + check + "' failed at '" + property + "': " + found + " (" + verb
                + " would fail with " + errno + ")");
        this.check = check;
        this.property = property;
        this.found = found;
        this.verb = verb;
        this.errno = errno;
        this.action = action;
    }

    public String check() {
        return check;
    }

    public String property() {
        return property;
    }

    public String found() {
        return found;
    }

    public String verb() {
        return verb;
    }

    public Errno errno() {
        return errno;
    }

    public String action() {
        return action;
    }
}

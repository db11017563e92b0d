package io.rdma.verbs.api;

import java.util.Objects;

/**
 * A verb failed. Carries the verb as libibverbs names it ({@code ibv_post_send}), the errno,
 * and what to do about it where the verbs manual gives advice (§13.2–13.3), so the message
 * reads like a good {@code perror} line and a failure analyzer can act on it.
 *
 * <p>Unchecked: RDMA calls sit inside lambdas, futures and Spring callbacks, where a
 * checked exception only gets wrapped.
 */
public class VerbsException extends RuntimeException {

    private final String verb;
    private final String detail;
    private final Errno errno;
    private final int rawErrno;
    private final String advice;
    private final long badWorkRequestId;
    private final boolean hasBadWorkRequest;

    public VerbsException(String verb, Errno errno, String detail, String advice) {
        this(verb, errno, errno.code(), detail, advice, 0, false, null);
    }

    public VerbsException(String verb, int rawErrno, String detail, String advice) {
        this(verb, Errno.of(rawErrno), Math.abs(rawErrno), detail, advice, 0, false, null);
    }

    private VerbsException(String verb, Errno errno, int rawErrno, String detail, String advice,
                           long badWorkRequestId, boolean hasBadWorkRequest, Throwable cause) {
        super(format(verb, errno, rawErrno, detail, advice), cause);
        this.verb = Objects.requireNonNull(verb, "verb");
        this.detail = detail;
        this.errno = Objects.requireNonNull(errno, "errno");
        this.rawErrno = rawErrno;
        this.advice = advice;
        this.badWorkRequestId = badWorkRequestId;
        this.hasBadWorkRequest = hasBadWorkRequest;
    }

    /** The same failure, naming the first work request of a chain that was not posted ({@code bad_wr}). */
    public VerbsException withBadWorkRequest(long wrId) {
        return new VerbsException(verb, errno, rawErrno, detail, advice, wrId, true, getCause());
    }

    public static VerbsException of(String verb, Errno errno, String detail) {
        return new VerbsException(verb, errno, detail, null);
    }

    public String verb() {
        return verb;
    }

    public Errno errno() {
        return errno;
    }

    /** The errno number as the provider reported it (meaningful even when {@link #errno()} is UNKNOWN). */
    public int errnoCode() {
        return rawErrno;
    }

    /** What to do, where the manual says; may be {@code null}. */
    public String advice() {
        return advice;
    }

    /** What went wrong beyond the errno (the resource, the sizes involved); may be {@code null}. */
    public String detail() {
        return detail;
    }

    /** Whether a chained post failed part-way; then {@link #badWorkRequestId()} names the first WR not posted. */
    public boolean hasBadWorkRequest() {
        return hasBadWorkRequest;
    }

    public long badWorkRequestId() {
        return badWorkRequestId;
    }

    private static String format(String verb, Errno errno, int raw, String detail, String advice) {
        StringBuilder text = new StringBuilder(verb).append(" failed with ")
                .append(errno == Errno.UNKNOWN ? "errno" : errno.name()).append(" (").append(raw).append(')');
        if (detail != null && !detail.isEmpty()) {
            text.append(": ").append(detail);
        }
        if (advice != null && !advice.isEmpty()) {
            text.append(". ").append(advice);
        }
        return text.toString();
    }
}

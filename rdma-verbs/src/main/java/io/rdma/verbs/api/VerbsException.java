package io.rdma.verbs.api;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A verb failed. Carries the verb as libibverbs names it ({@code ibv_post_send}), the errno,
 * and what to do about it where the manual gives advice (verbs manual §13.2–13.3), so the message
 * reads like a good {@code perror} line and a failure analyzer can act on it.
 *
 * <p>Unchecked: RDMA calls sit inside lambdas, futures and Spring callbacks, where a
 * checked exception only gets wrapped.
 *
 * <p>Immutable (the {@code with...} methods return a copy), so it may be handed between threads.
 */
public class VerbsException extends RuntimeException {

    private final String verb;
    private final @Nullable String detail;
    private final Errno errno;
    private final int rawErrno;
    private final @Nullable String advice;
    private final long badWorkRequestId;
    private final boolean hasBadWorkRequest;
    private final int postedWorkRequests;

    public VerbsException(String verb, Errno errno, @Nullable String detail, @Nullable String advice) {
        this(verb, errno, errno.code(), detail, advice, 0, false, 0, null);
    }

    public VerbsException(String verb, int rawErrno, @Nullable String detail, @Nullable String advice) {
        this(verb, Errno.of(rawErrno), Math.abs(rawErrno), detail, advice, 0, false, 0, null);
    }

    private VerbsException(String verb, Errno errno, int rawErrno, @Nullable String detail, @Nullable String advice,
                           long badWorkRequestId, boolean hasBadWorkRequest, int postedWorkRequests,
                           @Nullable Throwable cause) {
        super(format(verb, errno, rawErrno, detail, advice), cause);
        this.verb = Objects.requireNonNull(verb, "verb");
        this.detail = detail;
        this.errno = Objects.requireNonNull(errno, "errno");
        this.rawErrno = rawErrno;
        this.advice = advice;
        this.badWorkRequestId = badWorkRequestId;
        this.hasBadWorkRequest = hasBadWorkRequest;
        this.postedWorkRequests = postedWorkRequests;
    }

    /** The verb, the errno, and the detail and advice where there are any: never null. */
    @Override
    public String getMessage() {
        return Objects.requireNonNull(super.getMessage()); // the constructor always formats one
    }

    /**
     * The same failure, naming the work request of a chain that was refused ({@code bad_wr});
     * none of the chain was posted.
     */
    public VerbsException withBadWorkRequest(long wrId) {
        return withBadWorkRequest(wrId, 0);
    }

    /**
     * The same failure, naming the first work request of a chain that was not posted
     * ({@code bad_wr}) when the {@code posted} requests before it were: a device may refuse a
     * chain part-way, and only the position says which, as wr_ids may repeat.
     */
    public VerbsException withBadWorkRequest(long wrId, int posted) {
        return new VerbsException(verb, errno, rawErrno, detail, advice, wrId, true, posted, getCause());
    }

    /** The same failure, caused by {@code cause} (such as a closed memory scope). */
    public VerbsException withCause(Throwable cause) {
        return new VerbsException(verb, errno, rawErrno, detail, advice, badWorkRequestId, hasBadWorkRequest,
                postedWorkRequests, cause);
    }

    public static VerbsException of(String verb, Errno errno, @Nullable String detail) {
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

    /** What to do, where the verbs manual says; may be {@code null}. */
    public @Nullable String advice() {
        return advice;
    }

    /** What went wrong beyond the errno (the resource, the sizes involved); may be {@code null}. */
    public @Nullable String detail() {
        return detail;
    }

    /** Whether a chained post failed part-way; then {@link #badWorkRequestId()} names the first WR not posted. */
    public boolean hasBadWorkRequest() {
        return hasBadWorkRequest;
    }

    public long badWorkRequestId() {
        return badWorkRequestId;
    }

    /** How many work requests of a failed chain, from its head, were posted all the same. */
    public int postedWorkRequests() {
        return postedWorkRequests;
    }

    private static String format(String verb, Errno errno, int raw, @Nullable String detail, @Nullable String advice) {
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

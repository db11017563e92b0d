package io.rdma.verbs.api;

/**
 * The Linux errno values that verbs report, by name and number, so an error can say
 * both ({@code EINVAL (22)}) exactly as {@code strerror} users expect.
 *
 * <p>Immutable, so thread-safe.
 */
public enum Errno {
    EPERM(1, "Operation not permitted"),
    ENOENT(2, "No such file or directory"),
    EINTR(4, "Interrupted system call"),
    EIO(5, "Input/output error"),
    EAGAIN(11, "Resource temporarily unavailable"),
    ENOMEM(12, "Cannot allocate memory"),
    EACCES(13, "Permission denied"),
    EFAULT(14, "Bad address"),
    EBUSY(16, "Device or resource busy"),
    EEXIST(17, "File exists"),
    ENODEV(19, "No such device"),
    EINVAL(22, "Invalid argument"),
    ENOSPC(28, "No space left on device"),
    ENOSYS(38, "Function not implemented"),
    ENODATA(61, "No data available"),
    EOVERFLOW(75, "Value too large for defined data type"),
    /** Linux defines ENOTSUP as EOPNOTSUPP; the man pages use both names. */
    EOPNOTSUPP(95, "Operation not supported"),
    EADDRINUSE(98, "Address already in use"),
    EADDRNOTAVAIL(99, "Cannot assign requested address"),
    ENETDOWN(100, "Network is down"),
    ENETUNREACH(101, "Network is unreachable"),
    ECONNRESET(104, "Connection reset by peer"),
    ETIMEDOUT(110, "Connection timed out"),
    ECONNREFUSED(111, "Connection refused"),
    EHOSTUNREACH(113, "No route to host"),
    UNKNOWN(-1, "Unknown error");

    /** The name the counter man pages use for {@link #EOPNOTSUPP}. */
    public static final Errno ENOTSUP = EOPNOTSUPP;

    private final int code;
    private final String description;

    Errno(int code, String description) {
        this.code = code;
        this.description = description;
    }

    public int code() {
        return code;
    }

    public String description() {
        return description;
    }

    /** Maps a raw errno (positive or negated, as some verbs return it) to its name. */
    public static Errno of(int code) {
        int positive = Math.abs(code);
        for (Errno errno : values()) {
            if (errno.code == positive) {
                return errno;
            }
        }
        return UNKNOWN;
    }
}

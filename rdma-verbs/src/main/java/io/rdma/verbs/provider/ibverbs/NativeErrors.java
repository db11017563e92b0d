package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.VerbsException;

import org.jspecify.annotations.Nullable;

/** Turns a failed verb's errno into a {@link VerbsException} with what to do about the usual causes. */
final class NativeErrors {

    /** Used when a library reports failure without setting errno. */
    static final int EIO = Errno.EIO.code();

    private NativeErrors() {
    }

    /**
     * The errno of an {@code ibv_post_*} return value. The man pages promise an errno; libsiw also
     * returns negated ones, and -1, the result of its failed doorbell {@code write()} (the kernel
     * refused the work request, e.g. a QP not in RTS), which names no errno: that one is EIO, not
     * EPERM.
     */
    static int ofPost(int returned) {
        return returned == -1 ? EIO : returned;
    }

    static VerbsException failure(String verb, int errno, @Nullable String detail) {
        return new VerbsException(verb, errno, detail, adviceFor(verb, Errno.of(errno)));
    }

    static @Nullable String adviceFor(String verb, Errno errno) {
        return switch (errno) {
            case ENOMEM -> verb.equals("ibv_reg_mr")
                    ? "the locked-memory limit is probably too low: raise RLIMIT_MEMLOCK (ulimit -l unlimited)"
                    : "the device or the locked-memory limit is exhausted: lower the queue sizes or raise "
                            + "RLIMIT_MEMLOCK (ulimit -l)";
            case EPERM, EACCES -> "the process may not use /dev/infiniband/uverbs*: run it in the rdma group or "
                    + "grant access to the device files";
            case ENOSYS -> "the kernel has no RDMA support here: load ib_uverbs and a device driver (rdma_rxe for "
                    + "Soft-RoCE), or use provider 'auto' to fall back to the simulated fabric";
            case EOPNOTSUPP -> "the device (or this libibverbs) does not implement " + verb;
            case ENODEV -> verb.startsWith("rdma_resolve_")
                    ? "no RDMA device serves that address: on RoCE (Soft-RoCE too) rdma_cm cannot route the "
                            + "loopback address 127.0.0.1; use an IP address of the device's network interface"
                    : "the device went away (unplugged, driver unloaded or reset)";
            case ETIMEDOUT -> "the peer did not answer in time: check the address, that it listens, and the route";
            case ECONNREFUSED -> "nothing listens on that address and port, or the peer rejected the connection";
            default -> null;
        };
    }
}

package io.rdma.verbs.api;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * How much memory this process may pin: every {@code ibv_reg_mr} pins its pages and counts them
 * against {@code RLIMIT_MEMLOCK} ({@code ulimit -l}; containers default to 8 MiB), and fails with
 * ENOMEM above it, unless the process has {@code CAP_IPC_LOCK}, which lifts the limit.
 *
 * @param limit the soft limit in bytes, an unsigned value; empty when it is {@code RLIM_INFINITY}
 *              (2^64-1, which a signed read would take for -1)
 * @param ipcLockCapability whether {@code CAP_IPC_LOCK} is in the effective set (bit 14 of
 *                          {@code CapEff} in {@code /proc/self/status})
 *
 * <p>Immutable, so thread-safe.
 */
public record LockedMemoryAllowance(OptionalLong limit, boolean ipcLockCapability) {

    /** {@code rlim_t}'s RLIM_INFINITY, read into a signed long. */
    private static final long RLIM_INFINITY = -1L;

    public LockedMemoryAllowance {
        Objects.requireNonNull(limit, "limit");
    }

    public static LockedMemoryAllowance unlimited() {
        return new LockedMemoryAllowance(OptionalLong.empty(), false);
    }

    /** From {@code getrlimit(RLIMIT_MEMLOCK)}'s {@code rlim_cur}, an unsigned 64-bit value. */
    public static LockedMemoryAllowance ofRlimit(long rlimCur, boolean ipcLockCapability) {
        return new LockedMemoryAllowance(rlimCur == RLIM_INFINITY ? OptionalLong.empty() : OptionalLong.of(rlimCur),
                ipcLockCapability);
    }

    /** Whether registering {@code bytes} in all stays within what the process may pin. */
    public boolean permits(long bytes) {
        return ipcLockCapability || limit.isEmpty() || Long.compareUnsigned(bytes, limit.getAsLong()) <= 0;
    }

    /** The limit as {@code ulimit -l} would put it, in bytes: {@code unlimited} or the number. */
    public String describeLimit() {
        return limit.isEmpty() ? "unlimited" : Long.toUnsignedString(limit.getAsLong()) + " bytes";
    }
}

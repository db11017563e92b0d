package io.rdma.sample.faults;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * One operation on a register (a key's value, null when absent) that takes effect at a single
 * instant between {@code invoke} and {@code complete} (epoch microseconds; {@link Long#MAX_VALUE}:
 * no upper bound), described by {@code text} for a report.
 */
record RegisterOp(Kind kind, @Nullable String value, long invoke, long complete, String text) {

    enum Kind {
        /** Sets the register to {@code value} (null: absent), whatever it held. */
        WRITE,
        /** Sets it to absent, and took effect only if it held a value (a DELETE that answered 204). */
        DELETE,
        /** Returns what the register holds, which must be {@code value} (null: absent). */
        READ
    }

    /** Whether this operation can take effect while the register holds {@code register}. */
    boolean allows(@Nullable String register) {
        return switch (kind) {
            case WRITE -> true;
            case DELETE -> register != null;
            case READ -> Objects.equals(value, register);
        };
    }

    /** What the register holds once this operation took effect on {@code register}. */
    @Nullable String after(@Nullable String register) {
        return switch (kind) {
            case WRITE -> value;
            case DELETE -> null;
            case READ -> register;
        };
    }
}

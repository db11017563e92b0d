package io.rdma.verbs.api;

/**
 * {@code enum ibv_atomic_cap}: whether and how atomics are supported.
 *
 * <p>Immutable, so thread-safe.
 */
public enum AtomicCapability {
    NONE, HCA, GLOB;

    /** @throws ArrayIndexOutOfBoundsException when {@code value} is not an {@code ibv_atomic_cap} value */
    public static AtomicCapability of(int value) {
        return values()[value];
    }
}

package io.rdma.verbs.api;

/** {@code enum ibv_atomic_cap}: whether and how atomics are supported. */
public enum AtomicCapability {
    NONE, HCA, GLOB;

    public static AtomicCapability of(int value) {
        return values()[value];
    }
}

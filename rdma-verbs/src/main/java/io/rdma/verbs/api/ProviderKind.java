package io.rdma.verbs.api;

/**
 * Which provider serves an application ({@code rdma.provider}).
 *
 * <p>Immutable, so thread-safe.
 */
public enum ProviderKind {
    /** Native when libibverbs loads and shows a device, otherwise the simulated fabric; the choice is logged. */
    AUTO,
    /** libibverbs and librdmacm through FFM; fails when they or a device are missing. */
    NATIVE,
    /** The in-JVM software fabric. */
    SIMULATED;

    public String providerName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}

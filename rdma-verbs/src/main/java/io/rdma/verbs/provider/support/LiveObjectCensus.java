package io.rdma.verbs.provider.support;

import io.rdma.verbs.api.ResourceKind;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Objects a provider created and has not destroyed, per kind: what
 * {@link io.rdma.verbs.spi.ProviderSession#liveObjects()} reports, so a test can prove nothing leaks.
 */
public final class LiveObjectCensus {

    private final AtomicLongArray live = new AtomicLongArray(ResourceKind.values().length);

    public void created(ResourceKind kind) {
        live.incrementAndGet(kind.ordinal());
    }

    public void destroyed(ResourceKind kind) {
        live.decrementAndGet(kind.ordinal());
    }

    /** Every kind, zero or not. */
    public Map<ResourceKind, Long> snapshot() {
        Map<ResourceKind, Long> counts = new EnumMap<>(ResourceKind.class);
        for (ResourceKind kind : ResourceKind.values()) {
            counts.put(kind, live.get(kind.ordinal()));
        }
        return counts;
    }
}

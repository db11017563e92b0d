package io.rdma.verbs.provider.nativ;

import io.rdma.verbs.api.ResourceKind;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/** Native objects created and not yet destroyed, per kind, for {@code Verbs.liveObjects()}. */
final class NativeCensus {

    private final AtomicLongArray live = new AtomicLongArray(ResourceKind.values().length);

    void created(ResourceKind kind) {
        live.incrementAndGet(kind.ordinal());
    }

    void destroyed(ResourceKind kind) {
        live.decrementAndGet(kind.ordinal());
    }

    Map<ResourceKind, Long> snapshot() {
        Map<ResourceKind, Long> counts = new EnumMap<>(ResourceKind.class);
        for (ResourceKind kind : ResourceKind.values()) {
            counts.put(kind, live.get(kind.ordinal()));
        }
        return counts;
    }
}

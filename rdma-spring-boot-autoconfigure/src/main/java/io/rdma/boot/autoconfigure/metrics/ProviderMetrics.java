package io.rdma.boot.autoconfigure.metrics;

import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.Verbs;

import java.util.Locale;
import java.util.Map;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Which provider serves the application and what it holds: {@code rdma_provider_info{provider,requested,reason}}
 * answers whether RDMA is really in use or the application fell back to the simulated fabric
 * ({@code requested="auto"}, {@code provider="simulated"}), and why, in the words logged at startup;
 * {@code rdma_live_objects{kind}} is the provider's census of verbs objects created and not destroyed,
 * by kind, so that a leak shows in production as a count that only grows. The census is read once per
 * scrape for all kinds ({@link ScrapeSnapshot}).
 */
public class ProviderMetrics implements RdmaMeterBinder {

    private final RdmaResources resources;

    public ProviderMetrics(RdmaResources resources) {
        this.resources = resources;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Verbs verbs = resources.verbs();
        Gauge.builder("rdma.provider.info", () -> 1)
                .description("The provider serving RDMA, the one requested, and why it was chosen; always 1")
                .tags("provider", verbs.providerName(), "requested", verbs.requestedKind().providerName(),
                        "reason", verbs.selectionReason())
                .register(registry);
        ScrapeSnapshot<Map<ResourceKind, Long>> census = new ScrapeSnapshot<>(verbs::liveObjects);
        for (ResourceKind kind : ResourceKind.values()) {
            if (kind == ResourceKind.MEMORY_POOL) {
                continue; // a provider sees a pool as the one region it registers: pools count as memory_region
            }
            int reader = census.reader();
            // the function holds the snapshot, the meter the provider (see ScrapeSnapshot)
            Gauge.builder("rdma.live.objects", verbs, v -> {
                Map<ResourceKind, Long> counts = census.valueFor(reader);
                return counts == null ? Double.NaN : counts.getOrDefault(kind, 0L);
            }).description("Verbs objects the provider created and has not destroyed, by kind")
                    .tag("kind", kind.name().toLowerCase(Locale.ROOT)).register(registry);
        }
    }
}

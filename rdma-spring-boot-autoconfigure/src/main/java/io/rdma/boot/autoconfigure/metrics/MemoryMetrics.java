package io.rdma.boot.autoconfigure.metrics;

import io.rdma.spring.resource.RdmaResources;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.ProtectionDomain;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Registered memory: {@code rdma_memory_pool_buffers{device,pool,state}} per declared pool, its
 * buffers {@code leased} and {@code free} (a pool that stays empty starves its receivers), and
 * {@code rdma_pd_registered_bytes{device,pd}} per declared protection domain, the memory it has
 * pinned (what counts against {@code ulimit -l}).
 */
public class MemoryMetrics implements RdmaMeterBinder {

    private final RdmaResources resources;

    public MemoryMetrics(RdmaResources resources) {
        this.resources = resources;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (RdmaResources.Named<MemoryPool> pool : resources.resources(MemoryPool.class)) {
            MemoryPool resource = pool.resource();
            String device = resource.context().deviceName();
            Gauge.builder("rdma.memory.pool.buffers", resource, p -> p.isClosed() ? Double.NaN : p.leasedCount())
                    .description("Buffers of the memory pool, by whether they are leased")
                    .tags("device", device, "pool", pool.name(), "state", "leased").register(registry);
            Gauge.builder("rdma.memory.pool.buffers", resource,
                            p -> p.isClosed() ? Double.NaN : p.capacity() - p.leasedCount())
                    .description("Buffers of the memory pool, by whether they are leased")
                    .tags("device", device, "pool", pool.name(), "state", "free").register(registry);
        }
        for (RdmaResources.Named<ProtectionDomain> pd : resources.resources(ProtectionDomain.class)) {
            Gauge.builder("rdma.pd.registered", pd.resource(), p -> p.isClosed() ? Double.NaN : p.registeredBytes())
                    .description("Memory registered with the protection domain: its regions and pools")
                    .baseUnit("bytes").tags("device", pd.resource().context().deviceName(), "pd", pd.name())
                    .register(registry);
        }
    }
}

package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.DeviceSpec;
import io.rdma.verbs.spi.ProviderAvailability;
import io.rdma.verbs.spi.ProviderSession;
import io.rdma.verbs.spi.VerbsProvider;

import java.util.List;

/** The {@code simulated} provider: always available, it needs nothing but the JVM. */
public final class SimulatedProvider implements VerbsProvider {

    @Override
    public String name() {
        return "simulated";
    }

    @Override
    public ProviderAvailability availability() {
        return ProviderAvailability.available(0, "the simulated fabric runs in the JVM");
    }

    @Override
    public ProviderSession open(List<DeviceSpec> simulatedDevices) {
        return new SimulatedFabric(simulatedDevices);
    }
}

package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.ProviderSettings;
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

    /** Creates the devices {@code settings} describe as {@link DeviceSpec}s; without any, one default device, {@code sim0}. */
    @Override
    public ProviderSession open(List<? extends ProviderSettings> settings) {
        List<DeviceSpec> devices = settings.stream().filter(DeviceSpec.class::isInstance).map(DeviceSpec.class::cast)
                .toList();
        return new SimulatedFabric(devices.isEmpty() ? List.of(DeviceSpec.named("sim0").build()) : devices);
    }
}

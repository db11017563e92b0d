package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.ProviderSettings;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.spi.ProviderAvailability;
import io.rdma.verbs.spi.ProviderSession;
import io.rdma.verbs.spi.VerbsProvider;

import java.util.List;
import java.util.Optional;

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

    /**
     * Opens a host with the devices {@code settings} describe as {@link DeviceSpec}s (without any,
     * one default device, {@code sim0}) on the fabric a {@link SharedFabric} names, or on a
     * private fabric without one.
     */
    @Override
    public ProviderSession open(List<? extends ProviderSettings> settings) {
        List<DeviceSpec> devices = settings.stream().filter(DeviceSpec.class::isInstance).map(DeviceSpec.class::cast)
                .toList();
        return FabricRegistry.join(sharedFabric(settings),
                devices.isEmpty() ? List.of(DeviceSpec.named("sim0").build()) : devices);
    }

    /** The one fabric the settings name; a session is one host, on one fabric. */
    private static Optional<SharedFabric> sharedFabric(List<? extends ProviderSettings> settings) {
        List<SharedFabric> named = settings.stream().filter(SharedFabric.class::isInstance)
                .map(SharedFabric.class::cast).distinct().toList();
        if (named.size() > 1) {
            throw new VerbsException("ibv_get_device_list", Errno.EINVAL, "the settings name " + named.size()
                    + " shared fabrics, " + named.stream().map(SharedFabric::name).toList()
                    + ", and a session is one host on one fabric", "pass one SharedFabric per session");
        }
        return named.stream().findFirst();
    }
}

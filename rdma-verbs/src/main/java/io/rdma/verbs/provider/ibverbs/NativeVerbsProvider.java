package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.ProviderSettings;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.spi.ProviderAvailability;
import io.rdma.verbs.spi.ProviderSession;
import io.rdma.verbs.spi.VerbsProvider;

import java.util.List;

/**
 * The {@code native} provider: libibverbs and librdmacm through FFM. Unavailable without
 * the rdma-core runtime or with an rdma-core release it was not verified against
 * ({@link RdmaCoreRelease}); available with zero devices (and the reason) on a kernel without
 * RDMA support, which makes {@code auto} fall back to the simulated fabric.
 */
public final class NativeVerbsProvider implements VerbsProvider {

    public static final String NAME = "native";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ProviderAvailability availability() {
        try {
            RdmaCoreRelease release = NativeLibraries.loadVerified();
            try (DeviceList list = DeviceList.open()) {
                if (list.devices().isEmpty()) {
                    return ProviderAvailability.available(0, release + ": " + list.emptyReason());
                }
                return ProviderAvailability.available(list.devices().size(), release + ": libibverbs lists "
                        + list.devices().stream().map(DeviceList::name).toList());
            }
        } catch (VerbsException e) {
            return ProviderAvailability.unavailable(e.getMessage());
        }
    }

    /**
     * Refuses, as {@link #availability()} explains, an rdma-core that cannot be loaded or was not
     * verified. No settings are meant for this provider: it ignores them all.
     */
    @Override
    public ProviderSession open(List<? extends ProviderSettings> settings) {
        NativeLibraries.loadVerified();
        return new NativeSession(DeviceList.open());
    }
}

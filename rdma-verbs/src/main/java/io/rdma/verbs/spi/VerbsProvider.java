package io.rdma.verbs.spi;

import io.rdma.verbs.api.ProviderSettings;

import java.util.List;

/**
 * A verbs implementation, found with {@link java.util.ServiceLoader}. The API's provider
 * selection ({@code auto}, {@code native}, {@code simulated}) asks {@link #availability()} first.
 */
public interface VerbsProvider {

    /** {@code native} or {@code simulated}; what {@code rdma.provider} names. */
    String name();

    /** Whether the provider can run here and, when not, why (library missing, no kernel support, no device). */
    ProviderAvailability availability();

    /**
     * Opens the device list ({@code ibv_get_device_list}). {@code settings} are what the
     * application passed to {@link io.rdma.verbs.api.Verbs#open}, for every provider it might
     * get: a provider takes the settings of its own types and ignores the rest.
     */
    ProviderSession open(List<? extends ProviderSettings> settings);
}

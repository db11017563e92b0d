package io.rdma.boot.autoconfigure.preflight;

import org.jspecify.annotations.Nullable;

/**
 * What the configuration will ask of the host once a device is open.
 *
 * @param deviceProperty the device's properties, e.g. {@code rdma.devices.mlx5_0}
 * @param pinnedBytes bytes the registrations of the whole configuration pin (every device's
 *                    pools count against the one process-wide limit)
 * @param pinningProperty where those registrations are declared
 * @param connectionProperty a connection declared on the device, which needs {@code rdma_cm};
 *                           null when none is
 */
public record HostRequirements(String deviceProperty, long pinnedBytes, String pinningProperty,
                               @Nullable String connectionProperty) {
}

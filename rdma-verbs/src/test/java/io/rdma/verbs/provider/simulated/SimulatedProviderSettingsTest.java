package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.Device;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.ProviderSettings;
import io.rdma.verbs.api.Verbs;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What the simulated provider takes from the settings handed to {@link Verbs#open}, and what it offers back. */
class SimulatedProviderSettingsTest {

    /** Settings a provider other than the simulated one would take. */
    private record SettingsOfAnotherProvider() implements ProviderSettings {
    }

    @Test
    void withoutADeviceSpecTheFabricCreatesTheDefaultDevice() {
        try (Verbs verbs = Verbs.open(ProviderKind.SIMULATED, List.of(new SettingsOfAnotherProvider()))) {
            assertThat(verbs.devices()).extracting(Device::name).containsExactly("sim0");
        }
    }

    @Test
    void theFabricCreatesTheSpecifiedDevicesAndIgnoresOtherSettings() {
        List<ProviderSettings> settings = List.of(DeviceSpec.named("left").build(), new SettingsOfAnotherProvider(),
                DeviceSpec.named("right").build());
        try (Verbs verbs = Verbs.open(ProviderKind.SIMULATED, settings)) {
            assertThat(verbs.devices()).extracting(Device::name).containsExactly("left", "right");
        }
    }

    @Test
    void fabricControlIsTheOnlyExtension() {
        try (Verbs verbs = Verbs.open(ProviderKind.SIMULATED)) {
            assertThat(verbs.extension(FabricControl.class)).isPresent();
            assertThat(verbs.extension(AutoCloseable.class)).isEmpty();
        }
    }
}

package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.Device;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.TransportType;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.spi.ProviderAvailability;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** What the provider reports about this machine, whichever of the three cases it is. */
class NativeVerbsProviderTest {

    private final NativeVerbsProvider provider = new NativeVerbsProvider();

    /** Whether the provider can load rdma-core here; {@link RdmaCoreReleaseTest} covers one it refuses. */
    private static boolean verifiedRdmaCoreLoads() {
        return NativeLibraries.missing().isEmpty() && RdmaCoreRelease.loaded().verified();
    }

    @Test
    void isFoundByItsName() {
        assertThat(provider.name()).isEqualTo("native").isEqualTo(ProviderKind.NATIVE.providerName());
    }

    @Test
    void withoutRdmaCoreItIsUnavailableAndSaysWhatToInstall() {
        assumeTrue(NativeLibraries.missing().isPresent(), "rdma-core is installed here");
        ProviderAvailability availability = provider.availability();
        assertThat(availability.available()).isFalse();
        assertThat(availability.reason()).contains("libibverbs.so.1").contains("install");
    }

    @Test
    void onAKernelWithoutRdmaSupportItListsNoDevicesAndSaysEnosys() {
        assumeTrue(verifiedRdmaCoreLoads(), "no rdma-core, or one the provider was not verified against, is installed here");
        // libibverbs answers ENOSYS when the kernel has no uverbs ABI to offer
        assumeFalse(Files.exists(Path.of("/sys/class/infiniband_verbs")), "this kernel supports RDMA");
        ProviderAvailability availability = provider.availability();
        assertThat(availability.available()).isTrue();
        assertThat(availability.deviceCount()).isZero();
        assertThat(availability.reason()).contains("ENOSYS");
        try (Verbs verbs = Verbs.open(ProviderKind.NATIVE)) {
            assertThat(verbs.devices()).isEmpty();
            assertThat(verbs.liveObjects().values()).containsOnly(0L);
        }
    }

    @Test
    void withADeviceItCountsAndNamesIt() {
        assumeTrue(verifiedRdmaCoreLoads(), "no rdma-core, or one the provider was not verified against, is installed here");
        assumeTrue(Files.exists(Path.of("/sys/class/infiniband_verbs")), "this kernel has no RDMA support");
        ProviderAvailability availability = provider.availability();
        assertThat(availability.available()).isTrue();
        try (Verbs verbs = Verbs.open(ProviderKind.NATIVE)) {
            assertThat(verbs.devices()).hasSize(availability.deviceCount());
            verbs.devices().forEach(device -> assertThat(availability.reason()).contains(device.name()));
        }
    }

    /**
     * The transport follows the node type the kernel driver registered the device with
     * ({@code node_type} in sysfs, e.g. "1: CA" for rxe, "4: RNIC" for siw), as libibverbs derives it.
     */
    @Test
    void eachDeviceCarriesTheTransportOfItsNodeType() throws Exception {
        assumeTrue(verifiedRdmaCoreLoads(), "no rdma-core, or one the provider was not verified against, is installed here");
        assumeTrue(Files.exists(Path.of("/sys/class/infiniband_verbs")), "this kernel has no RDMA support");
        try (Verbs verbs = Verbs.open(ProviderKind.NATIVE)) {
            assumeFalse(verbs.devices().isEmpty(), "no RDMA device here");
            for (Device device : verbs.devices()) {
                String nodeType = Files.readString(Path.of("/sys/class/infiniband", device.name(), "node_type")).trim();
                TransportType expected = switch (nodeType.substring(0, nodeType.indexOf(':'))) {
                    case "1", "2", "3" -> TransportType.INFINIBAND; // CA, switch, router
                    case "4" -> TransportType.IWARP;                 // RNIC
                    default -> throw new AssertionError(device.name() + " has node type " + nodeType
                            + ", which this test does not know");
                };
                assertThat(device.transportType()).as(device.name() + ", node type " + nodeType).isEqualTo(expected);
            }
        }
    }
}

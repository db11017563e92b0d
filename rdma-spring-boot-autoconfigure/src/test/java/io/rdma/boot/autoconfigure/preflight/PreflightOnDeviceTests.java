package io.rdma.boot.autoconfigure.preflight;

import io.rdma.boot.autoconfigure.IwarpLack;
import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.verbs.api.Device;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.HostAccess;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.api.VerbsException;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The preflight on a real device (rxe0 in the Soft-RoCE guest, {@code -Drdma-test.device=rxe0}):
 * the host access read from the system, the GID chosen from the real table, and the
 * locked-memory check held against what {@code ibv_reg_mr} really does: a pool one page above
 * the limit fails the start exactly where the registration itself fails with ENOMEM. Run it
 * as root (CAP_IPC_LOCK: the pool starts) and as a user without CAP_IPC_LOCK and a low
 * {@code ulimit -l} (the start fails). Skipped where no native device exists.
 */
class PreflightOnDeviceTests {

    private String deviceName;

    @BeforeEach
    void nativeDevice() {
        try (Verbs verbs = Verbs.open(ProviderKind.AUTO)) {
            assumeTrue(verbs.providerName().equals("native"), "no native RDMA device: " + verbs.selectionReason());
            deviceName = System.getProperty("rdma-test.device", verbs.devices().getFirst().name());
        }
    }

    @Test
    void hostAccessAndGidTableOfTheDevice() {
        RdmaContextRunners.assumeInfinibandTransport(IwarpLack.IPV4_GID);
        try (Verbs verbs = Verbs.open(ProviderKind.NATIVE); DeviceContext context = verbs.device(deviceName).open()) {
            HostAccess access = verbs.device(deviceName).hostAccess();
            System.out.println("preflight on " + deviceName + ": " + access);
            System.out.println("GID table of port 1: " + context.queryGidTable(1));
            assertThat(access.verbsNode().usable()).as(access.verbsNode().toString()).isTrue();
            assertThat(access.verbsNode().path()).startsWith("/dev/infiniband/uverbs");
            assertThat(access.connectionManagerNode().usable()).isTrue();
            Map<Integer, Integer> chosen = PortPreflight.check(context, "rdma.devices." + deviceName,
                    List.of(new GidUse(1, null, "rdma.devices." + deviceName + ".gid-index")));
            System.out.println("GID index chosen for port 1: " + chosen);
            if (context.queryPort(1).linkLayer() == LinkLayer.ETHERNET) {
                int index = chosen.get(1);
                assertThat(context.queryGidTable(1)).anySatisfy(gid -> {
                    assertThat(gid.index()).isEqualTo(index);
                    assertThat(gid.isIpv4()).isTrue();
                });
            }
        }
    }

    @Test
    void lockedMemoryCheckAgreesWithIbvRegMr() {
        long pinned;
        boolean permitted;
        try (Verbs verbs = Verbs.open(ProviderKind.NATIVE)) {
            Device device = verbs.device(deviceName);
            var allowance = device.hostAccess().lockedMemory();
            // A pool one page above the limit, or 1 MiB when there is none.
            pinned = allowance.limit().isPresent() && allowance.limit().getAsLong() < (1L << 30)
                    ? allowance.limit().getAsLong() + ProtectionDomain.PAGE_SIZE : 1L << 20;
            permitted = allowance.permits(pinned);
            String verdict = permitted ? "permitted" : "refused";
            System.out.println("locked memory: " + allowance + "; a pool of " + pinned + " bytes is " + verdict);
            // CI runs this once as root and once without CAP_IPC_LOCK under a low ulimit -l, and
            // says which verdict each run must reach, so neither can pass down the other branch.
            String expected = System.getProperty("rdma-test.locked-memory");
            if (expected != null) {
                assertThat(verdict).as("-Drdma-test.locked-memory").isEqualTo(expected);
            }
            if (!permitted) {
                try (DeviceContext context = device.open(); ProtectionDomain pd = context.allocateProtectionDomain()) {
                    assertThatThrownBy(() -> pd.allocateMemory(pinned, EnumSet.noneOf(io.rdma.verbs.api.AccessFlag.class)))
                            .isInstanceOfSatisfying(VerbsException.class, e -> {
                                System.out.println("ibv_reg_mr of " + pinned + " bytes: " + e.getMessage());
                                assertThat(e.errno()).isEqualTo(Errno.ENOMEM);
                            });
                }
            }
        }
        String pd = "rdma.devices." + deviceName + ".protection-domains.pd0";
        RdmaContextRunners.runner().withPropertyValues("rdma.provider=native", pd + ".memory-pools.buffers.buffer-size="
                + ProtectionDomain.PAGE_SIZE + "B", pd + ".memory-pools.buffers.count=" + pinned / ProtectionDomain.PAGE_SIZE)
                .run(context -> {
                    if (permitted) {
                        assertThat(context).hasNotFailed();
                    } else {
                        var analysis = new RdmaPreflightFailureAnalyzer().analyze(context.getStartupFailure());
                        System.out.println(analysis.getDescription() + "Action: " + analysis.getAction());
                        assertThat(analysis.getDescription()).contains("check 'locked memory'");
                    }
                });
    }
}

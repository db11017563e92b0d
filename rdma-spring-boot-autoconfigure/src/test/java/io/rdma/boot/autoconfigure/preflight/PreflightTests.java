package io.rdma.boot.autoconfigure.preflight;

import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.boot.autoconfigure.ResourceLifecycleRecorder;
import io.rdma.boot.autoconfigure.SimulatedOnly;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.GidType;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.provider.simulated.DeviceSpec;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each preflight check fails the start on a simulated device whose host or ports are set up to
 * fail it, with an analysis naming the check, the property, the verb and its errno, and leaves
 * nothing alive; the same declaration on a well set-up device starts. On a real device the checks run
 * in {@link PreflightOnDeviceTests}.
 */
@SimulatedOnly // describes simulated devices (rdma.simulated.devices) set up to fail each check
class PreflightTests {

    private static final String DEVICE = "rdma.devices.sim0";
    private static final String SIM = "rdma.simulated.devices.sim0";
    private static final String PD = DEVICE + ".protection-domains.pd0";

    /** One CQ, one PD with a 32 KiB pool and an RC QP. */
    private static final String[] DECLARATION = {
            DEVICE + ".completion-queues.cq.entries=256",
            PD + ".memory-pools.buffers.buffer-size=4KiB",
            PD + ".memory-pools.buffers.count=8",
            PD + ".queue-pairs.qp.send-cq=cq",
    };

    @Test
    void poolsAboveTheLockedMemoryLimitWithoutIpcLock() {
        FailureAnalysis analysis = fails("locked memory", DEVICE + ".protection-domains.*.memory-pools", SIM + ".locked-memory-limit=31KB");
        assertThat(analysis.getDescription()).contains("32768 bytes").contains("31744 bytes")
                .contains("ibv_reg_mr would fail with ENOMEM (12");
        assertThat(analysis.getAction()).contains("LimitMEMLOCK").contains("CAP_IPC_LOCK");
    }

    @Test
    void poolsUpToTheLockedMemoryLimitOrWithIpcLockStart() {
        starts(SIM + ".locked-memory-limit=32KB");
        starts(SIM + ".locked-memory-limit=1KB", SIM + ".ipc-lock-capability=true");
    }

    @Test
    void verbsNodeNotUsable() {
        FailureAnalysis denied = fails("device node", DEVICE, SIM + ".verbs-node-access=read-only");
        assertThat(denied.getDescription()).contains("/dev/infiniband/uverbs0").contains("not writable")
                .contains("ibv_open_device would fail with EACCES");
        FailureAnalysis missing = fails("device node", DEVICE, SIM + ".verbs-node-access=missing");
        assertThat(missing.getDescription()).contains("ENOENT");
        assertThat(missing.getAction()).contains("modprobe ib_uverbs").contains("--device /dev/infiniband/uverbs0");
    }

    @Test
    void connectionManagerNodeIsCheckedOnlyWhereConnectionsAreDeclared() {
        starts(SIM + ".connection-manager-node-access=missing");
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        RdmaContextRunners.simulatedRunner("connected").withBean(ResourceLifecycleRecorder.class, () -> recorder)
                .withPropertyValues(SIM + ".connection-manager-node-access=denied").run(context -> {
                    FailureAnalysis analysis = analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("Property: rdma.connections.listeners.echo\n")
                            .contains("/dev/infiniband/rdma_cm").contains("rdma_create_event_channel");
                });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    @Test
    void activeInfinibandPortWithoutLid() {
        FailureAnalysis analysis = fails("LID", DEVICE + ".port", SIM + ".subnet-manager=false");
        assertThat(analysis.getAction()).contains("subnet manager");
    }

    @Test
    void portThatIsNotActiveIsReportedNotFatal() {
        starts(SIM + ".initial-port-state=down", SIM + ".subnet-manager=false");
    }

    @Test
    void configuredGidIndexThatIsEmpty() {
        FailureAnalysis analysis = fails("GID", DEVICE + ".gid-index", SIM + ".link-layer=ethernet",
                DEVICE + ".gid-index=7");
        assertThat(analysis.getDescription()).contains("GID index 7 of port 1 is empty")
                .contains("[0 fe80::b8ce:f603:1:1 RoCE v2 sim0-port1, 1 ::ffff:10.1.1.1 RoCE v2 sim0-port1]");
    }

    @Test
    void configuredGidIndexOfTheWrongType() {
        FailureAnalysis analysis = fails("GID", DEVICE + ".gid-index", SIM + ".link-layer=ethernet",
                SIM + ".roce-gid-type=roce-v1", DEVICE + ".gid-index=1");
        assertThat(analysis.getDescription()).contains("is RoCE v1, not RoCE v2");
    }

    @Test
    void noRoceV2GidOfAnIpv4AddressToChoose() {
        FailureAnalysis analysis = fails("GID", DEVICE + ".gid-index", SIM + ".link-layer=ethernet",
                SIM + ".roce-gid-type=roce-v1");
        assertThat(analysis.getDescription()).contains("no RoCE v2 GID of an IPv4 address");
    }

    @Test
    void unsetGidIndexIsTheRoceV2GidOfTheIpv4AddressOnRoceAndZeroOnInfiniband() {
        List<DeviceSpec> specs = List.of(DeviceSpec.named("roce").linkLayer(LinkLayer.ETHERNET).ports(2).build(),
                DeviceSpec.named("ib").build());
        try (Verbs verbs = Verbs.open(ProviderKind.SIMULATED, specs);
             DeviceContext roce = verbs.device("roce").open();
             DeviceContext ib = verbs.device("ib").open()) {
            List<GidUse> unset = List.of(new GidUse(1, null, "rdma.devices.x.gid-index"),
                    new GidUse(2, null, "rdma.devices.x.protection-domains.pd.queue-pairs.qp.gid-index"),
                    new GidUse(2, 0, "rdma.devices.x.protection-domains.pd.queue-pairs.qp2.gid-index"));
            assertThat(roce.queryGidTable(1).get(1).type()).isEqualTo(GidType.ROCE_V2);
            assertThat(PortPreflight.check(roce, "rdma.devices.roce", unset)).isEqualTo(Map.of(1, 1, 2, 1));
            assertThat(PortPreflight.check(ib, "rdma.devices.ib", unset.subList(0, 1))).isEqualTo(Map.of(1, 0));
        }
    }

    private static void starts(String... overrides) {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        RdmaContextRunners.simulatedRunner().withBean(ResourceLifecycleRecorder.class, () -> recorder).withPropertyValues(DECLARATION)
                .withPropertyValues(overrides).run(context -> assertThat(context).hasNotFailed());
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    /** Starts {@link #DECLARATION} with {@code overrides}; asserts the check fails at {@code property} and leaks nothing. */
    private static FailureAnalysis fails(String check, String property, String... overrides) {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        RdmaContextRunners.simulatedRunner().withBean(ResourceLifecycleRecorder.class, () -> recorder).withPropertyValues(DECLARATION)
                .withPropertyValues(overrides).run(context -> {
                    analysis[0] = analyze(context.getStartupFailure());
                    assertThat(analysis[0].getDescription()).contains("check '" + check + "'")
                            .contains("Property: " + property + "\n");
                    assertThat(analysis[0].getAction()).isNotBlank();
                });
        if (recorder.verbs() != null) {
            RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
        }
        return analysis[0];
    }

    private static FailureAnalysis analyze(Throwable startupFailure) {
        assertThat(startupFailure).as("startup failure").isNotNull();
        FailureAnalysis analysis = new RdmaPreflightFailureAnalyzer().analyze(startupFailure);
        assertThat(analysis).as("analysis of %s", startupFailure).isNotNull();
        return analysis;
    }
}

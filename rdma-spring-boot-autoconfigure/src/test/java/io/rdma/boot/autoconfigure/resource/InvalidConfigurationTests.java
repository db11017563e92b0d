package io.rdma.boot.autoconfigure.resource;

import io.rdma.boot.autoconfigure.PlanCheck;
import io.rdma.boot.autoconfigure.IwarpLack;
import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.boot.autoconfigure.ResourceLifecycleRecorder;
import io.rdma.boot.autoconfigure.SimulatedOnly;
import io.rdma.verbs.api.Device;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.TransportType;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.provider.simulated.DeviceSpec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.Ordered;
import org.springframework.core.PriorityOrdered;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every invalid configuration fails the start with an {@link InvalidRdmaConfigurationException}
 * whose analysis names the property and what to do, and leaves nothing alive in the provider.
 */
class InvalidConfigurationTests {

    private static final String DEVICE = RdmaContextRunners.DEVICE_PROPERTY;
    /** The description of the device under test where a test runs on the simulated fabric. */
    private static final String SIMULATED_DEVICE = "rdma.simulated.devices." + RdmaContextRunners.DEVICE;
    /** The description of a simulated iWARP device beside the device under test. */
    private static final String IWARP_DEVICE = "rdma.simulated.devices.iw0";
    private static final String PD = DEVICE + ".protection-domains.pd0";
    private static final String QP = PD + ".queue-pairs.qp";

    /** A valid declaration: one CQ, one PD with a pool and an RC QP, one completion counter. */
    private static final String[] VALID = {
            DEVICE + ".completion-queues.cq.entries=256",
            DEVICE + ".completion-counters.sends.external-memory=" + System.getProperty("java.io.tmpdir") + "/rdma-invalid.cntr",
            PD + ".memory-pools.buffers.buffer-size=4KiB",
            PD + ".memory-pools.buffers.count=8",
            QP + ".send-cq=cq",
            QP + ".max-send-wr=64",
            QP + ".max-recv-wr=64",
    };

    @Test
    void theValidDeclarationStarts() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        RdmaContextRunners.runner().withBean(ResourceLifecycleRecorder.class, () -> recorder).withPropertyValues(VALID)
                .run(context -> assertThat(context).hasNotFailed());
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    @Test
    @SimulatedOnly // needs a machine without rdma-core: CI's first host run hides it
    void nativeWithoutRdmaCoreNamesTheMissingLibrary() {
        assumeFalse(nativeProviderLoads(), "rdma-core is installed here");
        FailureAnalysis analysis = fails("rdma.provider", "rdma.provider=native");
        assertThat(analysis.getDescription()).contains("libibverbs.so.1 cannot be loaded")
                .contains("none of the declared devices [" + RdmaContextRunners.DEVICE + "] can be opened");
        assertThat(analysis.getAction()).contains("rdma-core");
    }

    @Test
    @SimulatedOnly // needs rdma-core on a kernel without RDMA: the CI host once rdma-core is installed
    void nativeOnAKernelWithoutRdmaNamesTheCause() {
        assumeTrue(nativeProviderLoads(), "rdma-core is not installed here");
        assumeFalse(Files.exists(Path.of("/sys/class/infiniband_verbs")), "this kernel supports RDMA");
        FailureAnalysis analysis = failsOnAbsentDevice();
        assertThat(analysis.getDescription()).contains("provider 'native' has no device named 'absent9'")
                .contains("it lists no device at all").contains("ENOSYS");
        assertThat(analysis.getAction()).contains("rdma_rxe");
    }

    @Test
    void unknownDeviceUnderNativeListsTheDevicesPresent() {
        assumeTrue(nativeProviderLoads(), "rdma-core is not installed here");
        List<String> present;
        try (Verbs verbs = Verbs.open(ProviderKind.NATIVE)) {
            present = verbs.devices().stream().map(Device::name).toList();
        }
        assumeFalse(present.isEmpty(), "this host has no RDMA device");
        FailureAnalysis analysis = failsOnAbsentDevice();
        assertThat(analysis.getDescription()).contains("provider 'native' has no device named 'absent9'; devices present: "
                + present);
    }

    /**
     * Simulated only: the host's devices are a simulated fabric's. A key whose name the provider
     * does not list fails at the name, with the name looked for and the devices present.
     */
    @Test
    @SimulatedOnly
    void unknownDeviceNamedUnderAKeyNamesItsNameProperty() {
        FailureAnalysis analysis = fails(RdmaContextRunners.simulatedRunner().withBean(HostWithOtherDevice.class),
                "rdma.devices.nic.name", "rdma.devices.nic.name=absent9",
                "rdma.devices.nic.completion-queues.cq.entries=16");
        assertThat(analysis.getDescription()).contains("provider 'simulated' has no device named 'absent9'; devices"
                + " present: [" + HostWithOtherDevice.DEVICE + "]");
        assertThat(analysis.getAction()).startsWith("Name a device that ibv_devices lists");
    }

    @Test
    @PlanCheck
    void blankDeviceName() {
        FailureAnalysis analysis = failsInPlanCheck(DEVICE + ".name", DEVICE + ".name= ");
        assertThat(analysis.getDescription()).contains("the device name is blank");
        assertThat(analysis.getAction()).contains("ibv_devices").contains("'" + RdmaContextRunners.DEVICE + "'");
    }

    /** A second key on the device under test, by its name: two contexts on one device. */
    @Test
    @PlanCheck
    void twoKeysNamingOneDevice() {
        FailureAnalysis analysis = failsInPlanCheck("rdma.devices.again.name",
                "rdma.devices.again.name=" + RdmaContextRunners.DEVICE);
        assertThat(analysis.getDescription()).contains("device '" + RdmaContextRunners.DEVICE + "' is already opened by "
                + DEVICE + ";");
    }

    /** Two keys with the same name, neither of them the device's key. */
    @Test
    @PlanCheck
    void twoNamesOfOneDevice() {
        FailureAnalysis analysis = failsInPlanCheck("rdma.devices.b.name", "rdma.devices.a.name=mlx5_0",
                "rdma.devices.b.name=mlx5_0");
        assertThat(analysis.getDescription()).contains("device 'mlx5_0' is already opened by rdma.devices.a.name;");
    }

    /** A device no machine has, declared on the native provider. */
    private static FailureAnalysis failsOnAbsentDevice() {
        return fails(RdmaContextRunners.runner(), "rdma.devices.absent9", "rdma.provider=native",
                "rdma.devices.absent9.completion-queues.cq.entries=16");
    }

    /** Whether the native provider opens at all: rdma-core loads, with or without devices. */
    private static boolean nativeProviderLoads() {
        try (Verbs verbs = Verbs.open(ProviderKind.NATIVE)) {
            return true;
        } catch (VerbsException e) {
            return false;
        }
    }

    @Test
    @PlanCheck
    void unknownCompletionQueue() {
        FailureAnalysis analysis = failsInPlanCheck(QP + ".send-cq", QP + ".send-cq=cq9");
        assertThat(analysis.getDescription()).contains("no completion queue named 'cq9'");
        assertThat(analysis.getAction()).contains("[cq]");
    }

    @Test
    @PlanCheck
    void unknownRecvCompletionQueue() {
        failsInPlanCheck(QP + ".recv-cq", QP + ".recv-cq=nope");
    }

    @Test
    @PlanCheck
    void unknownSharedReceiveQueue() {
        failsInPlanCheck(QP + ".srq", QP + ".srq=srq9");
    }

    @Test
    @PlanCheck
    void sharedReceiveQueueOfAnotherProtectionDomain() {
        FailureAnalysis analysis = failsInPlanCheck(QP + ".srq",
                DEVICE + ".protection-domains.pd1.shared-receive-queues.other.max-wr=16", QP + ".srq=other");
        assertThat(analysis.getDescription()).contains("belongs to protection domain 'pd1'")
                .contains("only from an SRQ of its own PD");
    }

    @Test
    @PlanCheck
    void unknownCompletionCounter() {
        FailureAnalysis analysis = failsInPlanCheck(QP + ".completion-counters.recvs", QP + ".completion-counters.recvs=recv");
        assertThat(analysis.getDescription()).contains("no completion counter named 'recvs'");
    }

    @Test
    @PlanCheck
    void unknownMemoryPool() {
        failsInPlanCheck(QP + ".memory-pool", QP + ".memory-pool=elsewhere");
    }

    @Test
    @PlanCheck
    void queuePairNamingNoneOfTheMemoryPoolsOfItsProtectionDomain() {
        FailureAnalysis analysis = failsInPlanCheck(QP + ".memory-pool", PD + ".memory-pools.replies.buffer-size=1KiB",
                PD + ".memory-pools.replies.count=8");
        assertThat(analysis.getDescription()).contains("protection domain 'pd0' declares 2 memory pools"
                + " [buffers, replies] and the queue pair names none of them");
        assertThat(analysis.getAction()).isEqualTo("Set memory-pool to one of [buffers, replies].");
    }

    @Test
    @PlanCheck
    void queuePairPrototypeNamingNoneOfTheMemoryPoolsOfItsProtectionDomain() {
        failsInPlanCheck(PD + ".queue-pair-prototypes.peer.memory-pool", PD + ".memory-pools.replies.buffer-size=1KiB",
                PD + ".memory-pools.replies.count=8", QP + ".memory-pool=buffers",
                PD + ".queue-pair-prototypes.peer.send-cq=cq");
    }

    /** A queue pair of a protection domain without pools is for raw verbs on memory regions of its own. */
    @Test
    void queuePairOfAProtectionDomainWithoutMemoryPoolsStarts() {
        RdmaContextRunners.runner().withPropertyValues(VALID)
                .withPropertyValues(DEVICE + ".protection-domains.raw.queue-pairs.raw0.send-cq=cq",
                        DEVICE + ".protection-domains.raw.queue-pairs.raw0.max-send-wr=8",
                        DEVICE + ".protection-domains.raw.queue-pairs.raw0.max-recv-wr=8")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    @PlanCheck
    void unknownFlowQueuePair() {
        failsInPlanCheck(DEVICE + ".flows.in.queue-pair", DEVICE + ".flows.in.queue-pair=ghost");
    }

    @Test
    @PlanCheck
    void flowToAConnectedQueuePair() {
        failsInPlanCheck(DEVICE + ".flows.in.queue-pair", DEVICE + ".flows.in.queue-pair=qp");
    }

    @Test
    @PlanCheck
    void completionQueueTooSmallForItsQueuePairs() {
        FailureAnalysis analysis = failsInPlanCheck(DEVICE + ".completion-queues.cq.entries", DEVICE + ".completion-queues.cq.entries=100");
        assertThat(analysis.getDescription()).contains("128").contains("[qp]");
        assertThat(analysis.getAction()).contains("at least 128");
    }

    @Test
    @PlanCheck
    void sizesThatAreNotPositive() {
        failsInPlanCheck(DEVICE + ".completion-queues.cq.entries", DEVICE + ".completion-queues.cq.entries=0");
        failsInPlanCheck(QP + ".max-send-wr", QP + ".max-send-wr=-1");
        failsInPlanCheck(QP + ".max-recv-wr", QP + ".max-recv-wr=0");
        failsInPlanCheck(PD + ".memory-pools.buffers.count", PD + ".memory-pools.buffers.count=0");
        failsInPlanCheck(PD + ".memory-pools.buffers.buffer-size", PD + ".memory-pools.buffers.buffer-size=0B");
        failsInPlanCheck(PD + ".shared-receive-queues.srq.max-wr", PD + ".shared-receive-queues.srq.max-wr=0");
        failsInPlanCheck(DEVICE + ".port", DEVICE + ".port=0");
    }

    @Test
    @PlanCheck
    void sendTimeoutsThatAreNegative() {
        FailureAnalysis analysis = failsInPlanCheck(QP + ".send-timeout", QP + ".send-timeout=-1s");
        assertThat(analysis.getDescription()).contains("negative");
        failsInPlanCheck(DEVICE + ".queue-pair-defaults.send-timeout", DEVICE + ".queue-pair-defaults.send-timeout=-5ms");
        failsInPlanCheck(PD + ".queue-pair-prototypes.peer.send-timeout", PD + ".queue-pair-prototypes.peer.send-cq=cq",
                PD + ".queue-pair-prototypes.peer.send-timeout=-100ms");
    }

    @Test
    @PlanCheck
    void idleBackOffsThatCannotRun() {
        String cq = DEVICE + ".completion-queues.cq";
        FailureAnalysis analysis = failsInPlanCheck(cq + ".idle-max-park", cq + ".idle=backoff", cq + ".idle-min-park=2ms",
                cq + ".idle-max-park=1ms");
        assertThat(analysis.getDescription()).contains("idle-min-park").contains("PT0.001S");
        failsInPlanCheck(cq + ".idle-min-park", cq + ".idle-min-park=-1ms");
        failsInPlanCheck(cq + ".idle-spins", cq + ".idle-spins=-1");
        failsInPlanCheck(cq + ".idle-yields", cq + ".idle-yields=-1");
    }

    /** Simulated only: it describes the device's limits (rdma.simulated.devices). */
    @Test
    @SimulatedOnly
    void sizesAboveTheDeviceLimits() {
        FailureAnalysis analysis = failsOnSimulated(DEVICE + ".completion-queues.cq.entries",
                SIMULATED_DEVICE + ".max-cqe=200");
        assertThat(analysis.getDescription()).contains("max_cqe").contains("200");
        failsOnSimulated(QP + ".max-send-wr", SIMULATED_DEVICE + ".max-qp-wr=32");
        failsOnSimulated(PD + ".shared-receive-queues.srq.max-wr", SIMULATED_DEVICE + ".max-srq-wr=8",
                PD + ".shared-receive-queues.srq.max-wr=16");
        failsOnSimulated(PD + ".memory-pools.buffers", SIMULATED_DEVICE + ".max-mr-size=16KB");
        failsOnSimulated(DEVICE + ".port", SIMULATED_DEVICE + ".ports=1", DEVICE + ".port=2");
    }

    /** Simulated only: it needs an InfiniBand port, the simulated default. */
    @Test
    @SimulatedOnly
    void flowOnAPortThatIsNotEthernet() {
        FailureAnalysis analysis = failsOnSimulated(DEVICE + ".flows.in.port", PD + ".queue-pairs.raw.type=raw-packet",
                PD + ".queue-pairs.raw.send-cq=cq", PD + ".queue-pairs.raw.max-send-wr=8",
                PD + ".queue-pairs.raw.max-recv-wr=8", DEVICE + ".flows.in.queue-pair=raw");
        assertThat(analysis.getDescription()).contains("INFINIBAND");
    }

    /** Simulated only: it describes the device's inline limit (rdma.simulated.devices). */
    @Test
    @SimulatedOnly
    void inlineDataAboveTheDeviceLimit() {
        FailureAnalysis analysis = failsOnSimulated(QP + ".max-inline-data", SIMULATED_DEVICE + ".max-inline-data=64",
                QP + ".max-inline-data=128");
        assertThat(analysis.getAction()).contains("at most 64");
    }

    @Test
    @PlanCheck
    void unknownAccessFlag() {
        FailureAnalysis analysis = failsInPlanCheck(PD + ".memory-pools.buffers.access[1]",
                PD + ".memory-pools.buffers.access[0]=local-write", PD + ".memory-pools.buffers.access[1]=remote-raed");
        assertThat(analysis.getDescription()).contains("'remote-raed' is not an access flag");
        assertThat(analysis.getAction()).startsWith("Did you mean remote-read?").contains("remote-atomic");
    }

    @Test
    @PlanCheck
    void unknownCompletionMode() {
        FailureAnalysis analysis = failsInPlanCheck(DEVICE + ".completion-queues.cq.mode", DEVICE + ".completion-queues.cq.mode=pollling");
        assertThat(analysis.getDescription()).contains("'pollling' is not a completion mode");
        assertThat(analysis.getAction()).isEqualTo("Did you mean polling? Use one of [polling, event, adaptive].");
    }

    @Test
    @PlanCheck
    void unknownCounterOpKind() {
        FailureAnalysis analysis = failsInPlanCheck(QP + ".completion-counters.sends", QP + ".completion-counters.sends=send,rdma-wirte");
        assertThat(analysis.getDescription()).contains("'rdma-wirte' is not a completion counter op");
        assertThat(analysis.getAction()).startsWith("Did you mean rdma-write?").contains("remote-rdma-read");
    }

    @Test
    @PlanCheck
    void overlappingOpMasksOfTwoCountersOnOneQueuePair() {
        FailureAnalysis analysis = failsInPlanCheck(QP + ".completion-counters.more", DEVICE + ".completion-counters.more.external-memory="
                        + System.getProperty("java.io.tmpdir") + "/rdma-invalid-more.cntr",
                QP + ".completion-counters.sends=send,recv", QP + ".completion-counters.more=recv");
        assertThat(analysis.getDescription()).contains("recv").contains("'sends'");
    }

    @Test
    @PlanCheck
    void remoteAccessWithoutLocalWrite() {
        FailureAnalysis analysis = failsInPlanCheck(PD + ".memory-pools.buffers.access",
                PD + ".memory-pools.buffers.access=remote-write");
        assertThat(analysis.getAction()).contains("local-write");
    }

    @Test
    @PlanCheck
    void datagramQueuePairWithRdmaOps() {
        FailureAnalysis analysis = failsInPlanCheck(QP + ".completion-counters.sends", QP + ".type=ud", QP + ".completion-counters.sends=rdma-write");
        assertThat(analysis.getDescription()).contains("UD");
    }

    /** Simulated only: it describes what the device counts (rdma.simulated.devices). */
    @Test
    @SimulatedOnly
    void counterOpTheDeviceCannotCount() {
        FailureAnalysis analysis = failsOnSimulated(QP + ".completion-counters.sends",
                SIMULATED_DEVICE + ".completion-counter-ops=send,recv", QP + ".completion-counters.sends=rdma-write");
        assertThat(analysis.getDescription()).contains("cannot count rdma-write");
    }

    /** Simulated only: it describes a device without completion counters (rdma.simulated.devices). */
    @Test
    @SimulatedOnly
    void deviceWithoutCompletionCounters() {
        failsOnSimulated(DEVICE + ".completion-counters.sends", SIMULATED_DEVICE + ".max-completion-counters=0");
    }

    @Test
    @PlanCheck
    void nameUsedTwice() {
        FailureAnalysis analysis = failsInPlanCheck(PD + ".queue-pairs.cq", PD + ".queue-pairs.cq.max-send-wr=8",
                PD + ".queue-pairs.cq.max-recv-wr=8");
        assertThat(analysis.getDescription()).contains("already used");
    }

    @Test
    @PlanCheck
    void flowMatchFieldsOutOfRange() {
        String[] flowToRawQueuePair = {PD + ".queue-pairs.raw.type=raw-packet", PD + ".queue-pairs.raw.send-cq=cq",
                PD + ".queue-pairs.raw.max-send-wr=8", PD + ".queue-pairs.raw.max-recv-wr=8",
                DEVICE + ".flows.in.queue-pair=raw", DEVICE + ".flows.in.match.protocol=udp"};
        String match = DEVICE + ".flows.in.match";
        FailureAnalysis analysis = failsInPlanCheck(match + ".destination-port", concat(flowToRawQueuePair,
                match + ".destination-port=70000"));
        assertThat(analysis.getDescription()).contains("70000").contains("UDP port, 0 to 65535");
        failsInPlanCheck(match + ".source-port", concat(flowToRawQueuePair, match + ".source-port=-1"));
        failsInPlanCheck(match + ".ether-type", concat(flowToRawQueuePair, match + ".ether-type=70000"));
        failsInPlanCheck(DEVICE + ".flows.in.priority", concat(flowToRawQueuePair, DEVICE + ".flows.in.priority=65536"));
        failsInPlanCheck(DEVICE + ".flows.in.port", concat(flowToRawQueuePair, DEVICE + ".flows.in.port=256"));
    }

    @Test
    @PlanCheck
    void portsAndGidIndexesOutOfRange() {
        FailureAnalysis analysis = failsInPlanCheck(DEVICE + ".port", DEVICE + ".port=300");
        assertThat(analysis.getAction()).isEqualTo("Set a value from 1 to 255.");
        failsInPlanCheck(QP + ".port", QP + ".port=256");
        failsInPlanCheck(DEVICE + ".gid-index", DEVICE + ".gid-index=256");
        failsInPlanCheck(QP + ".gid-index", QP + ".gid-index=-1");
        failsInPlanCheck("rdma.connections.outbound.out.port", "rdma.connections.outbound.out.queue-pair=qp",
                "rdma.connections.outbound.out.host=127.0.0.1", "rdma.connections.outbound.out.port=65536");
    }

    /** Verbs manual §6.2.2–§6.2.3: timeout and min_rnr_timer are 5-bit encodings, retry_cnt and rnr_retry 3-bit counts. */
    @Test
    @PlanCheck
    void reliabilitySettingsOutsideTheirIbEncodings() {
        FailureAnalysis analysis = failsInPlanCheck(QP + ".reliability.ack-timeout", QP + ".reliability.ack-timeout=32");
        assertThat(analysis.getDescription()).contains("the value 32").contains("ACK timeout")
                .contains("4.096 µs × 2^n").contains("0 to 31");
        assertThat(analysis.getAction()).startsWith("Set a value from 0 to 31");
        assertThat(failsInPlanCheck(QP + ".reliability.retry-count", QP + ".reliability.retry-count=8").getAction())
                .startsWith("Set a value from 0 to 7");
        failsInPlanCheck(QP + ".reliability.rnr-retry", QP + ".reliability.rnr-retry=-1");
        failsInPlanCheck(QP + ".reliability.rnr-timer", QP + ".reliability.rnr-timer=32");
        failsInPlanCheck(DEVICE + ".queue-pair-defaults.reliability.retry-count",
                DEVICE + ".queue-pair-defaults.reliability.retry-count=9");
        failsInPlanCheck(PD + ".queue-pair-prototypes.peer.reliability.ack-timeout", PD + ".queue-pair-prototypes.peer.send-cq=cq",
                PD + ".queue-pair-prototypes.peer.reliability.ack-timeout=40");
    }

    @Test
    @PlanCheck
    void reliabilitySettingsOnAQueuePairWithoutAcknowledgements() {
        FailureAnalysis analysis = failsInPlanCheck(QP + ".reliability", QP + ".type=uc", QP + ".reliability.retry-count=3");
        assertThat(analysis.getDescription()).contains("UC").contains("reliable connections (rc)");
        assertThat(analysis.getAction()).contains("Remove reliability");
    }

    /** The device's defaults apply to its rc queue pairs only, so a uc queue pair beside them starts. */
    @Test
    void reliabilityDefaultsPassUnreliableQueuePairsBy() {
        RdmaContextRunners.assumeInfinibandTransport(IwarpLack.RELIABILITY_SETTINGS);
        RdmaContextRunners.runner().withPropertyValues(VALID)
                .withPropertyValues(DEVICE + ".queue-pair-defaults.reliability.ack-timeout=0",
                        DEVICE + ".queue-pair-defaults.reliability.rnr-timer=31", QP + ".type=uc")
                .run(context -> assertThat(context).hasNotFailed());
    }

    /** Simulated only: it describes the device (rdma.simulated.devices). */
    @Test
    @SimulatedOnly
    void simulatedDeviceWithMorePortsThanAPortNumberHolds() {
        FailureAnalysis analysis = failsOnSimulated(SIMULATED_DEVICE + ".ports", SIMULATED_DEVICE + ".ports=300");
        assertThat(analysis.getDescription()).contains("port count");
    }

    @Test
    @SimulatedOnly
    void simulatedDeviceOfNoLinkLayer() {
        FailureAnalysis analysis = failsOnSimulated(SIMULATED_DEVICE + ".link-layer",
                SIMULATED_DEVICE + ".link-layer=unspecified");
        assertThat(analysis.getAction()).contains("infiniband or ethernet");
    }

    /** Simulated only: it describes the device (rdma.simulated.devices); iWARP runs on Ethernet. */
    @Test
    @SimulatedOnly
    void simulatedIwarpDeviceOnTheDefaultLinkLayer() {
        FailureAnalysis analysis = failsOnSimulated(IWARP_DEVICE + ".link-layer", IWARP_DEVICE + ".transport=iwarp");
        assertThat(analysis.getDescription()).contains("infiniband");
        assertThat(analysis.getAction()).contains("link-layer: ethernet");
    }

    /** Simulated only: it describes the device (rdma.simulated.devices). */
    @Test
    @SimulatedOnly
    void simulatedIwarpDeviceOnEthernetStarts() {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        String pd = "rdma.devices.iw0.protection-domains.pd0";
        RdmaContextRunners.simulatedRunner().withBean(ResourceLifecycleRecorder.class, () -> recorder)
                .withPropertyValues(IWARP_DEVICE + ".transport=iwarp", IWARP_DEVICE + ".link-layer=ethernet",
                        "rdma.devices.iw0.completion-queues.cq.entries=16", pd + ".queue-pairs.qp.type=rc",
                        pd + ".queue-pairs.qp.send-cq=cq", pd + ".queue-pairs.qp.max-send-wr=8",
                        pd + ".queue-pairs.qp.max-recv-wr=8")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("iw0", DeviceContext.class).device().transportType())
                            .isEqualTo(TransportType.IWARP);
                });
        RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
    }

    @Test
    @PlanCheck
    void memoryPoolsAboveThePhysicalMemory() {
        // 100 TB registered, but only 8.8 MB of buffer objects: the heap holds them, the machine not
        FailureAnalysis analysis = failsInPlanCheck(PD + ".memory-pools.buffers", PD + ".memory-pools.buffers.buffer-size=1GB",
                PD + ".memory-pools.buffers.count=100000");
        assertThat(analysis.getDescription()).contains("physical memory");
    }

    /** 1.6 GB registered, but 200,000,000 buffer objects: the registrations fit the machine, the buffers not the heap. */
    @Test
    @PlanCheck
    void memoryPoolWhoseBuffersDoNotFitTheHeap() {
        FailureAnalysis analysis = failsInPlanCheck(PD + ".memory-pools.buffers.count", PD + ".memory-pools.buffers.buffer-size=8B",
                PD + ".memory-pools.buffers.count=200000000");
        assertThat(analysis.getDescription()).contains("the 200000000 buffers of memory pool 'buffers' hold 16.4 GiB"
                + " of heap").contains("maximum heap");
        assertThat(analysis.getAction()).startsWith("Lower count").contains("-Xmx");
    }

    /** Simulated only: it describes the device's max_qp (rdma.simulated.devices). */
    @Test
    @SimulatedOnly
    void listenerPeersAboveMaxQp() {
        FailureAnalysis analysis = failsOnSimulated("rdma.connections.listeners.server.max-connections",
                SIMULATED_DEVICE + ".max-qp=2", PD + ".queue-pair-prototypes.peer.send-cq=cq",
                PD + ".queue-pair-prototypes.peer.max-send-wr=8", PD + ".queue-pair-prototypes.peer.max-recv-wr=8",
                "rdma.connections.listeners.server.queue-pair-prototype=peer",
                "rdma.connections.listeners.server.port=0", "rdma.connections.listeners.server.max-connections=4");
        assertThat(analysis.getDescription()).contains("max_qp").contains("need up to 5");
        assertThat(analysis.getAction()).startsWith("Set max-connections to at most 1");
    }

    @Test
    @PlanCheck
    void misspeltKeyOfAQueuePair() {
        FailureAnalysis analysis = failsInPlanCheck(QP + ".max-sned-wr", QP + ".max-sned-wr=64");
        assertThat(analysis.getDescription()).contains("no property 'max-sned-wr' exists under '" + QP + "'");
        assertThat(analysis.getAction()).startsWith("Did you mean max-send-wr?").contains("max-recv-wr");
    }

    @Test
    @PlanCheck
    void misspeltSectionOfADevice() {
        FailureAnalysis analysis = failsInPlanCheck(DEVICE + ".completion-queus.cq9.entries",
                DEVICE + ".completion-queus.cq9.entries=16");
        assertThat(analysis.getAction()).startsWith("Did you mean completion-queues?");
    }

    @Test
    @PlanCheck
    void misspeltTopLevelSection() {
        FailureAnalysis analysis = failsInPlanCheck("rdma.conections.outbound.backend.port", "rdma.conections.outbound.backend.port=1");
        assertThat(analysis.getAction()).startsWith("Did you mean connections?").contains("endpoint");
    }

    @Test
    @PlanCheck
    void keyBelowAValue() {
        FailureAnalysis analysis = failsInPlanCheck(DEVICE + ".port.number", DEVICE + ".port.number=1");
        assertThat(analysis.getDescription()).contains("'" + DEVICE + ".port' takes a value");
    }

    @Test
    @PlanCheck
    void keyWithoutAnyNearName() {
        FailureAnalysis analysis = failsInPlanCheck(QP + ".colour", QP + ".colour=blue");
        assertThat(analysis.getAction()).startsWith("The keys under " + QP + " are [").contains("send-cq");
    }

    /** Relaxed spellings of valid keys, the keys of the other properties classes under rdma, and other prefixes start. */
    @Test
    void relaxedFormsAndOtherPropertiesClassesAreKnown() {
        String environmentVariable = "RDMA_DEVICES_" + RdmaContextRunners.DEVICE.toUpperCase(Locale.ROOT)
                + "_PROTECTIONDOMAINS_PD0_QUEUEPAIRS_QP_MAXRECVWR";
        RdmaContextRunners.runner().withPropertyValues(VALID)
                .withPropertyValues(QP + ".maxSendWr=32", DEVICE + ".queue_pair_defaults.max_send_sge=1",
                        "rdma.endpoint.show-keys=true", "rdma.endpoint.counter-writes.enabled=false",
                        "rdma-test.anything=1")
                .withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                        new SystemEnvironmentPropertySource("test-environment", Map.of(environmentVariable, "64"))))
                .run(context -> assertThat(context).hasNotFailed());
    }

    /**
     * Stands in for a host whose only device is {@value #DEVICE}: replaces the provider's device
     * list the start opened (first, so that the recorder sees the one that serves).
     */
    static final class HostWithOtherDevice implements BeanPostProcessor, PriorityOrdered {

        static final String DEVICE = "other0";

        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
            if (bean instanceof Verbs opened) {
                opened.close();
                return Verbs.open(ProviderKind.SIMULATED, List.of(DeviceSpec.named(DEVICE).build()));
            }
            return bean;
        }

        @Override
        public int getOrder() {
            return Ordered.HIGHEST_PRECEDENCE;
        }
    }

    private static String[] concat(String[] first, String... more) {
        return Stream.concat(Arrays.stream(first), Arrays.stream(more)).toArray(String[]::new);
    }

    /** Starts the valid declaration with {@code overrides}; asserts it fails at {@code property} and leaks nothing. */
    private static FailureAnalysis fails(String property, String... overrides) {
        return fails(RdmaContextRunners.runner().withPropertyValues(VALID), property, overrides);
    }

    /**
     * {@link #fails(String, String...)} in the plan check, as a {@link PlanCheck} test asserts: no
     * provider was opened.
     */
    private static FailureAnalysis failsInPlanCheck(String property, String... overrides) {
        ResourceLifecycleRecorder recorder = new ResourceLifecycleRecorder();
        FailureAnalysis analysis = fails(RdmaContextRunners.runner().withPropertyValues(VALID), recorder, property,
                overrides);
        assertThat(recorder.verbs()).as("the provider the start opened before it failed").isNull();
        return analysis;
    }

    /** {@link #fails(String, String...)} on the simulated fabric, for overrides that describe the device. */
    private static FailureAnalysis failsOnSimulated(String property, String... overrides) {
        return fails(RdmaContextRunners.simulatedRunner().withPropertyValues(VALID), property, overrides);
    }

    private static FailureAnalysis fails(ApplicationContextRunner runner, String property, String... overrides) {
        return fails(runner, new ResourceLifecycleRecorder(), property, overrides);
    }

    private static FailureAnalysis fails(ApplicationContextRunner runner, ResourceLifecycleRecorder recorder,
                                         String property, String... overrides) {
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        runner.withBean(ResourceLifecycleRecorder.class, () -> recorder).withPropertyValues(overrides).run(context -> {
            assertThat(context).hasFailed();
            analysis[0] = new InvalidRdmaConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis[0]).as("analysis of %s", context.getStartupFailure()).isNotNull();
            assertThat(analysis[0].getDescription()).contains("Property: " + property + "\n");
            assertThat(analysis[0].getAction()).isNotBlank();
        });
        if (recorder.verbs() != null) {
            RdmaContextRunners.assertNoLiveObjects(recorder.verbs());
        }
        return analysis[0];
    }
}

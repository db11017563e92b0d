package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.AtomicCapability;
import io.rdma.verbs.api.CompletionBatch;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.ConnectOptions;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.TransportType;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.api.VerbsException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A simulated iWARP device is what Soft-iWARP's {@code siw0} is to an application: iWARP
 * transport, Ethernet ports, no atomics; it refuses immediate data at {@code ibv_post_send}
 * (EINVAL, as libsiw does for an opcode it has no mapping for) and every QP type but RC at
 * {@code ibv_create_qp} (EOPNOTSUPP, as {@code siw_create_qp} does), and sends as any device does.
 */
class IwarpDeviceTest {

    private static final DeviceSpec IWARP = DeviceSpec.named("iw0").transport(TransportType.IWARP)
            .linkLayer(LinkLayer.ETHERNET).atomics(false).build();
    private static final QueuePairCapabilities CAPABILITIES = QueuePairCapabilities.of(8, 8);

    private Verbs verbs;
    private DeviceContext context;
    private ProtectionDomain pd;
    private CompletionQueue requesterCq;
    private CompletionQueue responderCq;

    @BeforeEach
    void openTheIwarpDevice() {
        verbs = Verbs.open(ProviderKind.SIMULATED, List.of(IWARP));
        context = verbs.device("iw0").open();
        pd = context.allocateProtectionDomain();
        requesterCq = context.createCompletionQueue(16);
        responderCq = context.createCompletionQueue(16);
    }

    @AfterEach
    void close() {
        context.close();
        verbs.close();
    }

    @Test
    void reportsTheIwarpTransportAnEthernetLinkAndNoAtomics() {
        assertThat(verbs.device("iw0").transportType()).isEqualTo(TransportType.IWARP);
        assertThat(context.queryPort(1).linkLayer()).isEqualTo(LinkLayer.ETHERNET);
        assertThat(context.queryDevice().atomicCapability()).isEqualTo(AtomicCapability.NONE);
    }

    @Test
    void sendReachesTheConnectedRcQueuePair() {
        QueuePair requester = rcQueuePair(requesterCq);
        QueuePair responder = rcQueuePair(responderCq);
        connect(requester, responder);
        MemoryRegion source = pd.allocateMemory(64, EnumSet.of(AccessFlag.LOCAL_WRITE));
        MemoryRegion target = pd.allocateMemory(64, EnumSet.of(AccessFlag.LOCAL_WRITE));
        source.segment().setString(0, "over tcp");
        responder.postReceive(new ReceiveWorkRequest().wrId(1).addSge(target, 0, 64));

        requester.postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(source, 0, 9));

        CompletionBatch batch = new CompletionBatch(4);
        assertThat(responderCq.poll(batch)).isEqualTo(1);
        assertThat(batch.get(0).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(batch.get(0).opcode()).isEqualTo(CompletionOpcode.RECV);
        assertThat(target.segment().getString(0)).isEqualTo("over tcp");
        assertThat(requesterCq.poll(batch)).isEqualTo(1);
        assertThat(batch.get(0).status()).isEqualTo(CompletionStatus.SUCCESS);
    }

    @ParameterizedTest
    @EnumSource(value = SendOpcode.class, names = {"SEND_WITH_IMM", "RDMA_WRITE_WITH_IMM"})
    void immediateDataIsRefusedAtThePostAndNothingIsDelivered(SendOpcode opcode) {
        QueuePair requester = rcQueuePair(requesterCq);
        QueuePair responder = rcQueuePair(responderCq);
        connect(requester, responder);
        MemoryRegion source = pd.allocateMemory(64, EnumSet.of(AccessFlag.LOCAL_WRITE));
        MemoryRegion target = pd.allocateMemory(64, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE));
        source.segment().setString(0, "immediate");
        responder.postReceive(new ReceiveWorkRequest().wrId(1).addSge(target, 0, 64));

        assertThatThrownBy(() -> requester.postSend(new SendWorkRequest().wrId(2).opcode(opcode).immediateData(7)
                .flags(EnumSet.of(SendFlag.SIGNALED)).addSge(source, 0, 10).remote(target.remote(0, 64))))
                .isInstanceOfSatisfying(VerbsException.class, refused -> {
                    assertThat(refused.verb()).isEqualTo("ibv_post_send");
                    assertThat(refused.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(refused.badWorkRequestId()).isEqualTo(2);
                    assertThat(refused.postedWorkRequests()).isZero();
                });

        CompletionBatch batch = new CompletionBatch(4);
        assertThat(requesterCq.poll(batch)).as("completions of the refused WR").isZero();
        assertThat(responderCq.poll(batch)).as("completions at the responder").isZero();
        assertThat(target.segment().getString(0)).as("the responder's memory").isEmpty();
    }

    @ParameterizedTest
    @EnumSource(value = QueuePairType.class, names = {"UD", "UC"})
    void queuePairsOtherThanRcAreNotSupported(QueuePairType type) {
        assertThatThrownBy(() -> pd.createQueuePair(QueuePairOptions.of(type, requesterCq, CAPABILITIES)))
                .isInstanceOfSatisfying(VerbsException.class, refused -> {
                    assertThat(refused.verb()).isEqualTo("ibv_create_qp");
                    assertThat(refused.errno()).isEqualTo(Errno.EOPNOTSUPP);
                });
    }

    @Test
    void anIwarpSpecNeedsAnEthernetLinkLayer() {
        assertThatIllegalArgumentException().isThrownBy(() -> DeviceSpec.named("iw1").transport(TransportType.IWARP)
                .linkLayer(LinkLayer.INFINIBAND).atomics(false).build()).withMessageContaining("iw1");
    }

    @Test
    void anIwarpSpecHasNoAtomics() {
        assertThatIllegalArgumentException().isThrownBy(() -> DeviceSpec.named("iw1").transport(TransportType.IWARP)
                .linkLayer(LinkLayer.ETHERNET).atomics(true).build()).withMessageContaining("iw1");
    }

    @Test
    void theSimulatedTransportsAreInfinibandAndIwarp() {
        assertThatIllegalArgumentException().isThrownBy(() -> DeviceSpec.named("usnic0")
                .transport(TransportType.USNIC_UDP).linkLayer(LinkLayer.ETHERNET).build())
                .withMessageContaining("usnic0");
    }

    private QueuePair rcQueuePair(CompletionQueue cq) {
        return pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, cq, CAPABILITIES));
    }

    /** Both ends walked to RTS by hand: the fabric does not make an iWARP QP connect through rdma_cm. */
    private static void connect(QueuePair requester, QueuePair responder) {
        ConnectOptions options = ConnectOptions.defaults();
        requester.connect(responder.localEndpoint(options), options);
        responder.connect(requester.localEndpoint(options), options);
    }
}

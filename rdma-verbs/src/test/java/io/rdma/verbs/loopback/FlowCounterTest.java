package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.CounterDescription;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.Flow;
import io.rdma.verbs.api.FlowCounters;
import io.rdma.verbs.api.FlowSpec;
import io.rdma.verbs.api.FlowSpec.Protocol;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.ResourceClosedException;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.provider.simulated.DeviceSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Flow steering with flow counters ({@code ibv_create_counters(3)},
 * {@code ibv_attach_counters_point_flow(3)}): raw Ethernet frames sent by one RAW_PACKET QP,
 * steered to another by flows, counted per index. Needs an Ethernet port: on the simulated
 * fabric the tests open a RoCE device, on a native one they run where the device has flow
 * counters.
 */
class FlowCounterTest {

    private static final long RECEIVER_MAC = 0x02_00_00_00_00_0BL;
    private static final long SENDER_MAC = 0x02_00_00_00_00_0AL;
    private static final int SENDER_IP = 0x0A_00_00_01;
    private static final int RECEIVER_IP = 0x0A_00_00_02;
    private static final int UDP_PORT = 4000;
    private static final int TCP_PORT = 5000;
    private static final int SLOT = 2048;

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    private QueuePair sender;
    private QueuePair receiver;
    private MemoryRegion frames;
    private MemoryRegion receiveBuffers;
    private int framesSent;

    @Test
    void staticallyAttachedCountersCountMatchingFramesOnly() {
        openEthernetDeviceWithFlowCounters();
        FlowCounters counters = fabric.context().createFlowCounters();
        counters.attach(CounterDescription.PACKETS, 0);
        counters.attach(CounterDescription.BYTES, 1);
        receiver.createFlow(udpTo(UDP_PORT), counters);

        int matchingBytes = send(Protocol.UDP, UDP_PORT, 100) + send(Protocol.UDP, UDP_PORT, 200)
                + send(Protocol.UDP, UDP_PORT, 300);
        send(Protocol.UDP, UDP_PORT + 1, 100);
        send(Protocol.TCP, UDP_PORT, 100);

        List<Completion> received = Completions.await(receiver.receiveCompletionQueue(), 3);
        assertThat(received).allSatisfy(c -> assertThat(c.status()).isEqualTo(CompletionStatus.SUCCESS));
        assertThat(received).extracting(Completion::byteLength).containsExactly(
                (long) EthernetFrames.ETHERNET_HEADER + EthernetFrames.IPV4_HEADER + 8 + 100,
                (long) EthernetFrames.ETHERNET_HEADER + EthernetFrames.IPV4_HEADER + 8 + 200,
                (long) EthernetFrames.ETHERNET_HEADER + EthernetFrames.IPV4_HEADER + 8 + 300);
        assertThat(receiveBuffers.segment().asSlice(0, received.getFirst().byteLength()).mismatch(
                frames.segment().asSlice(0, received.getFirst().byteLength()))).isEqualTo(-1);
        assertThat(Completions.pollNow(receiver.receiveCompletionQueue())).as("non-matching frames").isEmpty();
        assertThat(counters.read()).containsExactly(3, matchingBytes);
    }

    @Test
    void countsAccumulateAcrossFlowsSharingCountersAndAcrossIndexes() {
        openEthernetDeviceWithFlowCounters();
        FlowCounters counters = fabric.context().createFlowCounters();
        counters.attach(CounterDescription.PACKETS, 0);
        counters.attach(CounterDescription.BYTES, 1);
        counters.attach(CounterDescription.PACKETS, 2);
        counters.attach(CounterDescription.BYTES, 2);
        receiver.createFlow(udpTo(UDP_PORT), counters);
        receiver.createFlow(FlowSpec.onPort(fabric.port()).withEthernet(FlowSpec.Ethernet.destination(RECEIVER_MAC))
                .withIpv4(FlowSpec.Ipv4.destination(RECEIVER_IP))
                .withTransport(FlowSpec.Transport.destination(Protocol.TCP, TCP_PORT)), counters);

        int bytes = send(Protocol.UDP, UDP_PORT, 50) + send(Protocol.UDP, UDP_PORT, 60) + send(Protocol.TCP, TCP_PORT, 70);
        send(Protocol.UDP, TCP_PORT, 80);

        assertThat(Completions.await(receiver.receiveCompletionQueue(), 3))
                .allSatisfy(c -> assertThat(c.status()).isEqualTo(CompletionStatus.SUCCESS));
        assertThat(counters.read()).containsExactly(3, bytes, 3 + bytes);
        long[] reused = new long[8];
        assertThat(counters.read(reused)).isEqualTo(3);
        assertThat(reused).startsWith(3, bytes, 3 + bytes);
    }

    @Test
    void overlappingFlowsSteerToTheLowestPriorityNumber() {
        openEthernetDeviceWithFlowCounters();
        QueuePair preferred = fabric.queuePair(QueuePairType.RAW_PACKET, fabric.completionQueue(16), null,
                LoopbackFabric.DEFAULT_CAPABILITIES);
        preferred.connect(null, fabric.connectOptions());
        preferred.postReceive(new ReceiveWorkRequest().wrId(100).addSge(receiveBuffers, 15L * SLOT, SLOT));
        receiver.createFlow(udpTo(UDP_PORT).withPriority(1), null);
        preferred.createFlow(udpTo(UDP_PORT).withPriority(0), null);

        send(Protocol.UDP, UDP_PORT, 64);

        assertThat(Completions.awaitOne(preferred.receiveCompletionQueue()).wrId()).isEqualTo(100);
        assertThat(Completions.pollNow(receiver.receiveCompletionQueue())).isEmpty();
    }

    @Test
    void countersBoundToAFlowTakeNoMoreAttaches() {
        openEthernetDeviceWithFlowCounters();
        FlowCounters counters = fabric.context().createFlowCounters();
        counters.attach(CounterDescription.PACKETS, 0);
        receiver.createFlow(udpTo(UDP_PORT), counters);

        VerbsErrors.expectFailure("ibv_attach_counters_point_flow", Errno.EBUSY,
                () -> counters.attach(CounterDescription.BYTES, 1));
        assertThat(counters.read()).containsExactly(0);
    }

    @Test
    void countersBoundToALiveFlowRefuseDestroyAndCloseAfterIt() {
        openEthernetDeviceWithFlowCounters();
        FlowCounters counters = fabric.context().createFlowCounters();
        counters.attach(CounterDescription.PACKETS, 0);
        Flow flow = receiver.createFlow(udpTo(UDP_PORT), counters);

        VerbsErrors.expectFailure("ibv_destroy_counters", Errno.EBUSY, counters::close);
        assertThat(counters.isClosed()).isFalse();
        assertThat(flow.isClosed()).as("a refused destroy leaves the flow alone").isFalse();

        flow.close();
        counters.close();
        assertThat(fabric.verbs().liveObjects()).containsEntry(ResourceKind.FLOW, 0L)
                .containsEntry(ResourceKind.FLOW_COUNTERS, 0L);
    }

    @Test
    void readsRacingACloseEndWithResourceClosed() throws Exception {
        openEthernetDeviceWithFlowCounters();
        for (int round = 0; round < 200; round++) {
            FlowCounters counters = fabric.context().createFlowCounters();
            counters.attach(CounterDescription.PACKETS, 0);

            Throwable ended = CloseRace.closeWhileUsed(counters, counters::read);

            assertThat(ended).as("round %d", round).isInstanceOf(ResourceClosedException.class);
        }
    }

    @Test
    void flowOnAReliableConnectedQueuePairIsInvalid() {
        openEthernetDeviceWithFlowCounters();
        QueuePair rc = fabric.queuePair(QueuePairType.RC, fabric.completionQueue(8), null,
                LoopbackFabric.DEFAULT_CAPABILITIES);

        VerbsErrors.expectFailure("ibv_create_flow", Errno.EINVAL, () -> rc.createFlow(udpTo(UDP_PORT), null));
    }

    @Test
    void deviceWithoutFlowCountersRefusesToCreateThem() {
        fabric.openSpecialDevice(DeviceSpec.named("sim-no-flow-counters").flowCounters(false).build());
        assumeFalse(fabric.deviceAttributes().flowCounters(), "this device has flow counters");

        VerbsErrors.expectFailure("ibv_create_counters", Errno.EOPNOTSUPP, () -> fabric.context().createFlowCounters());
    }

    private void openEthernetDeviceWithFlowCounters() {
        fabric.openSpecialDevice(DeviceSpec.named("sim-roce").linkLayer(LinkLayer.ETHERNET).build());
        assumeTrue(fabric.linkLayer() == LinkLayer.ETHERNET, "raw Ethernet frames need an Ethernet port");
        assumeTrue(fabric.deviceAttributes().flowCounters(), "the device has no flow counters");
        sender = fabric.queuePair(QueuePairType.RAW_PACKET, fabric.completionQueue(64), null,
                LoopbackFabric.DEFAULT_CAPABILITIES);
        receiver = fabric.queuePair(QueuePairType.RAW_PACKET, fabric.completionQueue(64), null,
                LoopbackFabric.DEFAULT_CAPABILITIES);
        fabric.connect(sender, receiver, fabric.connectOptions());
        frames = fabric.region(16L * SLOT);
        receiveBuffers = fabric.region(16L * SLOT);
        for (int i = 0; i < 15; i++) {
            receiver.postReceive(new ReceiveWorkRequest().wrId(i).addSge(receiveBuffers, (long) i * SLOT, SLOT));
        }
    }

    private FlowSpec udpTo(int port) {
        return FlowSpec.onPort(fabric.port()).withEthernet(FlowSpec.Ethernet.destination(RECEIVER_MAC))
                .withIpv4(FlowSpec.Ipv4.destination(RECEIVER_IP))
                .withTransport(FlowSpec.Transport.destination(Protocol.UDP, port));
    }

    /** Sends one frame to the receiver's addresses and {@code port}; returns the frame's length. */
    private int send(Protocol protocol, int port, int payload) {
        long offset = (long) framesSent * SLOT;
        int length = EthernetFrames.write(frames.segment().asSlice(offset, SLOT), RECEIVER_MAC, SENDER_MAC, SENDER_IP,
                RECEIVER_IP, protocol, 12345, port, payload);
        sender.postSend(new SendWorkRequest().wrId(framesSent).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(frames, offset, length));
        framesSent++;
        assertThat(Completions.awaitOne(sender.sendCompletionQueue()).status()).isEqualTo(CompletionStatus.SUCCESS);
        return length;
    }
}

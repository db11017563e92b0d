package io.rdma.verbs.loopback;

import io.rdma.verbs.api.AddressHandle;
import io.rdma.verbs.api.AddressVector;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** UC (connected, unacknowledged) and UD (datagrams through address handles). */
class UnreliableTransportTest {

    /** The UD receive buffer starts with room for a Global Routing Header (verbs manual §7.2). */
    private static final int GRH_BYTES = 40;

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @Test
    void unreliableConnectedSendArrives() {
        Loopback loopback = fabric.connectedPair(QueuePairType.UC);
        MemoryRegion source = fabric.region(2048);
        MemoryRegion target = fabric.region(2048);
        Payloads.fill(source.segment(), 0, 1500, 40);

        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(4).addSge(target, 0, 2048));
        loopback.requester().postSend(new SendWorkRequest().wrId(3).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(source, 0, 1500));

        Completion sent = Completions.awaitOne(loopback.requesterCq());
        assertThat(sent.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(sent.opcode()).isEqualTo(CompletionOpcode.SEND);
        Completion received = Completions.awaitOne(loopback.responderCq());
        assertThat(received.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(received.byteLength()).isEqualTo(1500);
        Payloads.assertFilled(target.segment(), 0, 1500, 40);
    }

    @Test
    void unreliableConnectedSendWithoutAReceiveIsLostWhileTheSenderSucceeds() {
        Loopback loopback = fabric.connectedPair(QueuePairType.UC);
        MemoryRegion source = fabric.region(256);
        MemoryRegion target = fabric.region(256);
        Payloads.fill(source.segment(), 0, 256, 44);

        loopback.requester().postSend(new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(source, 0, 100));
        assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(loopback.responder().state()).isEqualTo(QueuePairState.RTS);

        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(2).addSge(target, 0, 256));
        loopback.requester().postSend(new SendWorkRequest().wrId(3).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(source, 0, 200));
        assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
        Completion received = Completions.awaitOne(loopback.responderCq());
        assertThat(received.byteLength()).as("only the message sent after the receive").isEqualTo(200);
        Payloads.assertFilled(target.segment(), 0, 200, 44);
    }

    @Test
    void unreliableConnectedRdmaWriteArrives() {
        Loopback loopback = fabric.connectedPair(QueuePairType.UC);
        MemoryRegion source = fabric.region(4096);
        MemoryRegion target = fabric.region(4096);
        Payloads.fill(source.segment(), 0, 3000, 41);

        loopback.requester().postSend(new SendWorkRequest().wrId(8).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.RDMA_WRITE)
                .addSge(source, 0, 3000).remote(target.remote(1000, 3000)));

        Completion written = Completions.awaitOne(loopback.requesterCq());
        assertThat(written.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(written.opcode()).isEqualTo(CompletionOpcode.RDMA_WRITE);
        // UC has no acknowledgements: the requester's completion says the data left, not that it landed.
        Payloads.awaitFilled(target.segment(), 1000, 3000, 41);
    }

    @Test
    void datagramThroughAGlobalAddressHandleCarriesAGrh() {
        Loopback loopback = fabric.connectedPair(QueuePairType.UD);
        Gid gid = fabric.context().queryGid(fabric.port(), fabric.gidIndex());
        AddressHandle ah = fabric.pd().createAddressHandle(AddressVector.ofGid(gid, fabric.gidIndex(), fabric.port()));

        MemoryRegion target = fabric.region(GRH_BYTES + 200);

        Completion received = sendDatagram(loopback, ah, target, 42);

        assertThat(received.hasGrh()).isTrue();
        if (gid.ipv4() == -1) {
            // An IPv4-mapped (RoCE v2) GID puts an IPv4 header in the area instead.
            MemorySegment grh = target.segment().asSlice(0, GRH_BYTES);
            assertThat(grh.get(ValueLayout.JAVA_BYTE, 0) >>> 4 & 0xF).as("IP version").isEqualTo(6);
            assertThat(grh.get(ValueLayout.JAVA_BYTE, 6)).as("next header").isEqualTo((byte) 0x1B);
            assertThat(grh.asSlice(8, Gid.LENGTH).toArray(ValueLayout.JAVA_BYTE)).as("source GID")
                    .isEqualTo(gid.toBytes());
            assertThat(grh.asSlice(24, Gid.LENGTH).toArray(ValueLayout.JAVA_BYTE)).as("destination GID")
                    .isEqualTo(gid.toBytes());
        }
    }

    @Test
    void datagramThroughALidAddressHandleHasNoGrh() {
        assumeTrue(fabric.linkLayer() == LinkLayer.INFINIBAND, "LID routing needs an InfiniBand port");
        Loopback loopback = fabric.connectedPair(QueuePairType.UD);
        AddressHandle ah = fabric.pd().createAddressHandle(
                AddressVector.ofLid(fabric.portAttributes().lid(), fabric.port()));

        Completion received = sendDatagram(loopback, ah, fabric.region(GRH_BYTES + 300), 43);

        assertThat(received.hasGrh()).isFalse();
    }

    @Test
    void datagramWithTheWrongQkeyIsLostWhileTheSenderSucceeds() {
        Loopback loopback = fabric.connectedPair(QueuePairType.UD);
        AddressHandle ah = fabric.pd().createAddressHandle(loopback.responder()
                .localEndpoint(fabric.connectOptions()).addressVector(fabric.connectOptions()));
        MemoryRegion source = fabric.region(64);
        MemoryRegion target = fabric.region(GRH_BYTES + 64);
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(target, 0, GRH_BYTES + 64));

        loopback.requester().postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(source, 0, 64)
                .datagram(ah, loopback.responder().qpNumber(), ~fabric.connectOptions().qkey()));
        assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
        loopback.requester().postSend(new SendWorkRequest().wrId(3).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(source, 0, 32)
                .datagram(ah, loopback.responder().qpNumber(), fabric.connectOptions().qkey()));
        assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.SUCCESS);

        Completion received = Completions.awaitOne(loopback.responderCq());
        assertThat(received.byteLength()).as("only the datagram with the right Q_Key arrived")
                .isEqualTo(GRH_BYTES + 32);
        assertThat(Completions.pollNow(loopback.responderCq())).isEmpty();
    }

    /** Sends {@code target}'s size less the GRH area as one datagram into {@code target}. */
    private Completion sendDatagram(Loopback loopback, AddressHandle ah, MemoryRegion target, int seed) {
        int payload = (int) target.length() - GRH_BYTES;
        MemoryRegion source = fabric.region(payload);
        Payloads.fill(source.segment(), 0, payload, seed);

        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(12).addSge(target, 0, GRH_BYTES + payload));
        loopback.requester().postSend(new SendWorkRequest().wrId(11).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(source, 0, payload)
                .datagram(ah, loopback.responder().qpNumber(), fabric.connectOptions().qkey()));

        Completion sent = Completions.awaitOne(loopback.requesterCq());
        assertThat(sent.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(sent.opcode()).isEqualTo(CompletionOpcode.SEND);
        Completion received = Completions.awaitOne(loopback.responderCq());
        assertThat(received.wrId()).isEqualTo(12);
        assertThat(received.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(received.opcode()).isEqualTo(CompletionOpcode.RECV);
        assertThat(received.byteLength()).isEqualTo(payload + GRH_BYTES);
        assertThat(received.sourceQpNumber()).isEqualTo(loopback.requester().qpNumber());
        Payloads.assertFilled(target.segment(), GRH_BYTES, payload, seed);
        return received;
    }
}

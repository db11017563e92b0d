package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.Mtu;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** Two-sided traffic over a self-connected RC pair: what is sent is what is received, byte for byte. */
class SendReceiveTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @Test
    void sendArrivesInThePostedReceive() {
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        MemoryRegion source = fabric.region(4096);
        MemoryRegion target = fabric.region(4096);
        Payloads.fill(source.segment(), 0, 100, 1);

        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(7).addSge(target, 0, 4096));
        loopback.requester().postSend(new SendWorkRequest().wrId(3).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(source, 0, 100));

        Completion sent = Completions.awaitOne(loopback.requesterCq());
        Completion received = Completions.awaitOne(loopback.responderCq());
        assertThat(sent.wrId()).isEqualTo(3);
        assertThat(sent.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(sent.opcode()).isEqualTo(CompletionOpcode.SEND);
        assertThat(sent.qpNumber()).isEqualTo(loopback.requester().qpNumber());
        assertThat(received.wrId()).isEqualTo(7);
        assertThat(received.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(received.opcode()).isEqualTo(CompletionOpcode.RECV);
        assertThat(received.byteLength()).isEqualTo(100);
        assertThat(received.hasImmediateData()).isFalse();
        assertThat(received.qpNumber()).isEqualTo(loopback.responder().qpNumber());
        Payloads.assertFilled(target.segment(), 0, 100, 1);
        assertThat(loopback.requester().outstandingSends()).isZero();
    }

    @Test
    void sendWithImmediateDeliversTheImmediateData() {
        assumeFalse(fabric.isIwarp(), fabric.deviceName() + " is iWARP, which has no immediate data (RFC 5040; siw"
                + " refuses the opcode with EINVAL)");
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        MemoryRegion source = fabric.region(64);
        MemoryRegion target = fabric.region(64);
        Payloads.fill(source.segment(), 0, 64, 2);

        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(target, 0, 64));
        loopback.requester().postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.SEND_WITH_IMM)
                .immediateData(0xCAFE_BABE).addSge(source, 0, 64));

        assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
        Completion received = Completions.awaitOne(loopback.responderCq());
        assertThat(received.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(received.opcode()).isEqualTo(CompletionOpcode.RECV);
        assertThat(received.hasImmediateData()).isTrue();
        assertThat(received.immediateData()).isEqualTo(0xCAFE_BABE);
        assertThat(received.byteLength()).isEqualTo(64);
        Payloads.assertFilled(target.segment(), 0, 64, 2);
    }

    @Test
    void oneMebibyteSendSpansManyPathMtuPackets() {
        int size = 1 << 20;
        Loopback loopback = fabric.pair(QueuePairType.RC).connect(fabric.connectOptions().toBuilder()
                .pathMtu(Mtu.MTU_1024).build());
        MemoryRegion source = fabric.region(size);
        MemoryRegion target = fabric.region(size);
        Payloads.fill(source.segment(), 0, size, 3);

        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(target, 0, size));
        loopback.requester().postSend(new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(source, 0, size));

        assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
        Completion received = Completions.awaitOne(loopback.responderCq());
        assertThat(received.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(received.byteLength()).isEqualTo(size);
        assertThat(target.segment().mismatch(source.segment())).as("first differing byte").isEqualTo(-1);
    }

    @Test
    void scatterGatherListsOnBothSidesCarryTheConcatenatedBytes() {
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        MemoryRegion first = fabric.region(4096);
        MemoryRegion second = fabric.region(4096);
        MemoryRegion target = fabric.region(4096);
        Payloads.fill(first.segment(), 0, 4096, 4);
        Payloads.fill(second.segment(), 0, 4096, 5);
        target.segment().fill((byte) 0x5A);

        SendWorkRequest gather = new SendWorkRequest(3).wrId(1).flags(EnumSet.of(SendFlag.SIGNALED));
        gather.addSge(first.address() + 10, 100, first.lkey());
        gather.addSge(second.address() + 1000, 200, second.lkey());
        gather.addSge(first.address() + 3000, 300, first.lkey());
        ReceiveWorkRequest scatter = new ReceiveWorkRequest(4).wrId(2);
        for (int i = 0; i < 4; i++) {
            scatter.addSge(target.address() + i * 1024L, 150, target.lkey());
        }

        loopback.responder().postReceive(scatter);
        loopback.requester().postSend(gather);

        assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
        Completion received = Completions.awaitOne(loopback.responderCq());
        assertThat(received.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(received.byteLength()).isEqualTo(600);
        byte[] sent = concat(first.segment().asSlice(10, 100), second.segment().asSlice(1000, 200),
                first.segment().asSlice(3000, 300));
        byte[] arrived = concat(target.segment().asSlice(0, 150), target.segment().asSlice(1024, 150),
                target.segment().asSlice(2048, 150), target.segment().asSlice(3072, 150));
        assertThat(arrived).isEqualTo(sent);
        assertThat(target.segment().get(ValueLayout.JAVA_BYTE, 150)).as("byte after the first SGE")
                .isEqualTo((byte) 0x5A);
    }

    @Test
    void inlineSendNeedsNoRegisteredSource() {
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        MemoryRegion target = fabric.region(64);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment unregistered = arena.allocate(32);
            Payloads.fill(unregistered, 0, 32, 6);

            loopback.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(target, 0, 64));
            loopback.requester().postSend(new SendWorkRequest().wrId(1)
                    .flags(EnumSet.of(SendFlag.SIGNALED, SendFlag.INLINE)).addInline(unregistered));
            unregistered.fill((byte) 0);
        }

        assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
        Completion received = Completions.awaitOne(loopback.responderCq());
        assertThat(received.byteLength()).isEqualTo(32);
        Payloads.assertFilled(target.segment(), 0, 32, 6);
    }

    private static byte[] concat(MemorySegment... parts) {
        long total = 0;
        for (MemorySegment part : parts) {
            total += part.byteSize();
        }
        byte[] bytes = new byte[Math.toIntExact(total)];
        int at = 0;
        for (MemorySegment part : parts) {
            MemorySegment.copy(part, ValueLayout.JAVA_BYTE, 0, bytes, at, (int) part.byteSize());
            at += (int) part.byteSize();
        }
        return bytes;
    }
}

package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.ValueLayout;
import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** One-sided RDMA over a self-connected RC pair: write, write with immediate, read. */
class RdmaTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @Test
    void rdmaWritePlacesBytesWithoutConsumingAReceive() {
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        MemoryRegion source = fabric.region(4096);
        MemoryRegion target = fabric.region(4096);
        Payloads.fill(source.segment(), 0, 256, 10);
        target.segment().fill((byte) 0x11);

        loopback.requester().postSend(new SendWorkRequest().wrId(5).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.RDMA_WRITE)
                .addSge(source, 0, 256).remote(target.remote(64, 256)));

        Completion written = Completions.awaitOne(loopback.requesterCq());
        assertThat(written.wrId()).isEqualTo(5);
        assertThat(written.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(written.opcode()).isEqualTo(CompletionOpcode.RDMA_WRITE);
        Payloads.assertFilled(target.segment(), 64, 256, 10);
        assertThat(target.segment().get(ValueLayout.JAVA_BYTE, 63)).isEqualTo((byte) 0x11);
        assertThat(target.segment().get(ValueLayout.JAVA_BYTE, 64 + 256)).isEqualTo((byte) 0x11);
        assertThat(Completions.pollNow(loopback.responderCq())).as("a plain write completes nothing remotely")
                .isEmpty();
    }

    @Test
    void rdmaWriteWithImmediateCompletesAReceiveWithTheImmediate() {
        assumeFalse(fabric.isIwarp(), fabric.deviceName() + " is iWARP, which has no immediate data (RFC 5040; siw"
                + " refuses the opcode with EINVAL)");
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        MemoryRegion source = fabric.region(4096);
        MemoryRegion target = fabric.region(4096);
        MemoryRegion receiveBuffer = fabric.region(64);
        Payloads.fill(source.segment(), 0, 512, 11);

        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(21).addSge(receiveBuffer, 0, 64));
        loopback.requester().postSend(new SendWorkRequest().wrId(20).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.RDMA_WRITE_WITH_IMM)
                .immediateData(0x1234_5678).addSge(source, 0, 512).remote(target.remote(1024, 512)));

        Completion written = Completions.awaitOne(loopback.requesterCq());
        assertThat(written.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(written.opcode()).isEqualTo(CompletionOpcode.RDMA_WRITE);
        Completion received = Completions.awaitOne(loopback.responderCq());
        assertThat(received.wrId()).isEqualTo(21);
        assertThat(received.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(received.opcode()).isEqualTo(CompletionOpcode.RECV_RDMA_WITH_IMM);
        assertThat(received.hasImmediateData()).isTrue();
        assertThat(received.immediateData()).isEqualTo(0x1234_5678);
        Payloads.assertFilled(target.segment(), 1024, 512, 11);
    }

    @Test
    void rdmaReadFetchesRemoteBytes() {
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        MemoryRegion remote = fabric.region(8192);
        MemoryRegion local = fabric.region(8192);
        Payloads.fill(remote.segment(), 4096, 3000, 12);

        loopback.requester().postSend(new SendWorkRequest().wrId(9).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.RDMA_READ)
                .addSge(local, 100, 3000).remote(remote.remote(4096, 3000)));

        Completion read = Completions.awaitOne(loopback.requesterCq());
        assertThat(read.wrId()).isEqualTo(9);
        assertThat(read.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(read.opcode()).isEqualTo(CompletionOpcode.RDMA_READ);
        Payloads.assertFilled(local.segment(), 100, 3000, 12);
        assertThat(Completions.pollNow(loopback.responderCq())).isEmpty();
    }
}

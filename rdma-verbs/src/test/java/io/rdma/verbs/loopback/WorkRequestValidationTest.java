package io.rdma.verbs.loopback;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.Arena;
import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Work requests refused at post time, before anything reaches the wire. */
class WorkRequestValidationTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @ParameterizedTest
    @CsvSource({"UD, RDMA_WRITE", "UD, RDMA_READ", "UD, ATOMIC_FETCH_AND_ADD", "UC, RDMA_READ",
            "UC, ATOMIC_CMP_AND_SWP", "UC, ATOMIC_FETCH_AND_ADD"})
    void opcodeTheTransportLacksIsInvalid(QueuePairType type, SendOpcode opcode) {
        Loopback loopback = fabric.connectedPair(type);
        MemoryRegion buffer = fabric.region(64);
        SendWorkRequest wr = new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED)).opcode(opcode)
                .addSge(buffer, 0, 8).remote(buffer.remote());
        if (type == QueuePairType.UD) {
            wr.datagram(fabric.pd().createAddressHandle(loopback.responder()
                    .localEndpoint(fabric.connectOptions()).addressVector(fabric.connectOptions())),
                    loopback.responder().qpNumber(), fabric.connectOptions().qkey());
        }

        VerbsErrors.expectFailure("ibv_post_send", Errno.EINVAL, () -> loopback.requester().postSend(wr));
        assertThat(loopback.requester().outstandingSends()).isZero();
    }

    @Test
    void moreSendSgesThanGrantedIsInvalid() {
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        int granted = loopback.requester().capabilities().maxSendSge();
        MemoryRegion buffer = fabric.region(4096);
        SendWorkRequest wr = new SendWorkRequest(granted + 1).wrId(1).flags(EnumSet.of(SendFlag.SIGNALED));
        for (int i = 0; i <= granted; i++) {
            wr.addSge(buffer.address() + i * 8L, 8, buffer.lkey());
        }

        VerbsErrors.expectFailure("ibv_post_send", Errno.EINVAL, () -> loopback.requester().postSend(wr));
    }

    @Test
    void moreReceiveSgesThanGrantedIsInvalid() {
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        int granted = loopback.responder().capabilities().maxRecvSge();
        MemoryRegion buffer = fabric.region(4096);
        ReceiveWorkRequest wr = new ReceiveWorkRequest(granted + 1).wrId(1);
        for (int i = 0; i <= granted; i++) {
            wr.addSge(buffer.address() + i * 8L, 8, buffer.lkey());
        }

        VerbsErrors.expectFailure("ibv_post_recv", Errno.EINVAL, () -> loopback.responder().postReceive(wr));
    }

    @Test
    void inlineDataWithoutTheInlineFlagIsInvalid() {
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        try (Arena arena = Arena.ofConfined()) {
            SendWorkRequest wr = new SendWorkRequest().wrId(4).flags(EnumSet.of(SendFlag.SIGNALED))
                    .addInline(arena.allocate(8));

            VerbsErrors.expectFailure("ibv_post_send", Errno.EINVAL, () -> loopback.requester().postSend(wr));
            assertThat(loopback.requester().outstandingSends()).as("refused before it took a slot").isZero();
        }
    }

    @Test
    void inlineDataAboveTheGrantedMaximumIsInvalid() {
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        int granted = loopback.requester().capabilities().maxInlineData();
        assumeTrue(granted > 0, "the device grants no inline data");
        try (Arena arena = Arena.ofConfined()) {
            VerbsErrors.expectFailure("ibv_post_send", Errno.EINVAL, () -> loopback.requester().postSend(
                    new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED, SendFlag.INLINE))
                            .addInline(arena.allocate(granted + 1))));
        }
    }

    @Test
    void fullReceiveQueueRefusesMore() {
        Loopback loopback = fabric.connectedPair(QueuePairType.RC);
        QueuePair responder = loopback.responder();
        MemoryRegion buffer = fabric.region(64);
        for (int i = 0; i < responder.capabilities().maxRecvWr(); i++) {
            responder.postReceive(new ReceiveWorkRequest().wrId(i).addSge(buffer, 0, 64));
        }

        VerbsErrors.expectFailure("ibv_post_recv", Errno.ENOMEM,
                () -> responder.postReceive(new ReceiveWorkRequest().wrId(-1).addSge(buffer, 0, 64)));
    }

    @Test
    void datagramWithoutAnAddressHandleIsInvalid() {
        Loopback loopback = fabric.connectedPair(QueuePairType.UD);
        MemoryRegion buffer = fabric.region(64);

        VerbsErrors.expectFailure("ibv_post_send", Errno.EINVAL,
                () -> loopback.requester().postSend(new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                        .addSge(buffer, 0, 8)));
    }
}

package io.rdma.verbs.loopback;

import io.rdma.verbs.api.AddressHandle;
import io.rdma.verbs.api.CompletionCounter;
import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.CompletionCounterOptions;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.ResourceClosedException;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.VerbsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Misuse an application can commit through the public API: each is a Java exception naming
 * the verb, leaves the QP as it was (a post is all or nothing) and never crashes the JVM.
 * Scenarios that would crash it on a regression run in a forked JVM ({@link ForkedJvm}).
 */
class MisuseTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @Test
    void inlineDataWhoseArenaWasClosedIsRefusedWithEfaultWithoutCrashingTheJvm() throws Exception {
        String output = ForkedJvm.runExpectingExitZero(InlineFromClosedArena.class);

        assertThat(output).contains("refused: ibv_post_send").contains("EFAULT").contains("Already closed")
                .contains("outstanding sends: 0").doesNotContain("posted\n");
    }

    @Test
    void postsThroughAClosedAddressHandleReturnTheirSlots() {
        Loopback datagrams = fabric.connectedPair(QueuePairType.UD);
        QueuePair requester = datagrams.requester();
        int depth = requester.capabilities().maxSendWr();
        MemoryRegion buffer = fabric.region(4096);
        int qkey = fabric.connectOptions().qkey();
        AddressHandle closed = fabric.pd().createAddressHandle(datagrams.responder()
                .localEndpoint(fabric.connectOptions()).addressVector(fabric.connectOptions()));
        closed.close();
        SendWorkRequest wr = new SendWorkRequest();

        for (int i = 0; i < depth + 1; i++) {
            assertThatThrownBy(() -> requester.postSend(wr.reset().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                    .addSge(buffer, 0, 64)
                    .datagram(closed, datagrams.responder().qpNumber(), qkey)))
                    .isInstanceOf(ResourceClosedException.class);
        }
        assertThat(requester.outstandingSends()).isZero();

        AddressHandle open = fabric.pd().createAddressHandle(datagrams.responder()
                .localEndpoint(fabric.connectOptions()).addressVector(fabric.connectOptions()));
        datagrams.responder().postReceive(new ReceiveWorkRequest().wrId(3).addSge(buffer, 0, 4096));
        requester.postSend(wr.reset().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED)).addSge(buffer, 0, 64)
                .datagram(open, datagrams.responder().qpNumber(),
                qkey));
        assertThat(Completions.awaitOne(datagrams.requesterCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(Completions.awaitOne(datagrams.responderCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
    }

    /**
     * The counter counts into memory the application closed: posts and polls go on whole, the
     * counter reports the loss (EFAULT) when read, and everything still closes.
     */
    @Test
    void counterWhoseExternalMemoryWasClosedNeitherBreaksPostsNorClose() {
        assumeTrue(fabric.deviceAttributes().supportsCompletionCounters(), "the device has no completion counters");
        assumeTrue(fabric.deviceAttributes().supportedCompletionCounterOps().contains(CompletionCounterOp.SEND),
                "the device cannot count SEND");
        Loopback loopback = fabric.pair(QueuePairType.RC);
        CompletionCounter counter;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment completions = arena.allocate(JAVA_LONG);
            MemorySegment errors = arena.allocate(JAVA_LONG);
            counter = fabric.context().createCompletionCounter(
                    CompletionCounterOptions.externalMemory(completions, errors));
            loopback.requester().attachCompletionCounter(counter, Set.of(CompletionCounterOp.SEND));
        }
        loopback.connect(fabric.connectOptions());
        MemoryRegion buffer = fabric.region(64);
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(buffer, 0, 64));

        loopback.requester().postSend(new SendWorkRequest().wrId(2).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(buffer, 0, 8));

        assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(Completions.awaitOne(loopback.responderCq()).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(loopback.requester().outstandingSends()).isZero();
        VerbsException lost = VerbsErrors.expectFailure("read of comp_count", Errno.EFAULT, counter::completions);
        assertThat(lost.advice()).contains("comp_cntr_ext_mem");
        fabric.context().close();
        assertThat(fabric.verbs().liveObjects().values()).allSatisfy(live -> assertThat(live).isZero());
    }

    @Test
    void counterMemoryConfinedToOneThreadIsRefused() {
        assumeTrue(fabric.deviceAttributes().supportsCompletionCounters(), "the device has no completion counters");
        try (Arena arena = Arena.ofConfined()) {
            VerbsErrors.expectFailure("ibv_create_comp_cntr", Errno.EINVAL, () -> fabric.context()
                    .createCompletionCounter(CompletionCounterOptions.externalMemory(arena.allocate(JAVA_LONG),
                            arena.allocate(JAVA_LONG))));
        }
    }
}

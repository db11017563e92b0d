package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionCounter;
import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.CompletionCounterOptions;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.ConnectOptions;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.ResourceClosedException;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The rules of {@code ibv_create_comp_cntr(3)} and {@code ibv_qp_attach_comp_cntr(3)}, one per test. */
class CompletionCounterTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    @ParameterizedTest
    @EnumSource(CompletionCounterOp.class)
    void eachOpKindCountsOnlyItsOwnCompletionsWhereTheyHappen(CompletionCounterOp op) {
        requireOps(op);
        Loopback loopback = fabric.pair(QueuePairType.RC);
        CompletionCounter counter = fabric.context().createCompletionCounter();
        boolean countsAtResponder = op.isRemote() || op == CompletionCounterOp.RECV;
        (countsAtResponder ? loopback.responder() : loopback.requester()).attachCompletionCounter(counter, Set.of(op));
        loopback.connect(fabric.connectOptions());

        Traffic traffic = new Traffic(fabric, loopback);
        traffic.sends(2);
        traffic.reads(3);
        traffic.writes(4);

        long expected = switch (op) {
            case SEND, RECV -> 2;
            case RDMA_READ, REMOTE_RDMA_READ -> 3;
            case RDMA_WRITE, REMOTE_RDMA_WRITE -> 4;
        };
        assertThat(counter.completions()).isEqualTo(expected);
        assertThat(counter.errors()).isZero();
    }

    @Test
    void unsignaledRequestsAreCountedToo() {
        requireOps(CompletionCounterOp.SEND);
        Loopback loopback = fabric.pair(QueuePairType.RC);
        CompletionCounter counter = fabric.context().createCompletionCounter();
        loopback.requester().attachCompletionCounter(counter, Set.of(CompletionCounterOp.SEND));
        loopback.connect(fabric.connectOptions());
        MemoryRegion buffer = fabric.region(64);
        for (int i = 0; i < 5; i++) {
            loopback.responder().postReceive(new ReceiveWorkRequest().wrId(i).addSge(buffer, 0, 64));
            loopback.requester().postSend(new SendWorkRequest().wrId(i)
                    .flags(i == 4 ? EnumSet.of(SendFlag.SIGNALED) : EnumSet.noneOf(SendFlag.class))
                    .addSge(buffer, 0, 8));
        }

        assertThat(Completions.awaitOne(loopback.requesterCq()).wrId()).isEqualTo(4);
        Completions.await(loopback.responderCq(), 5);
        assertThat(counter.completions()).isEqualTo(5);
    }

    @Test
    void flushedRequestsCountAsErrors() {
        requireOps(CompletionCounterOp.RECV);
        Loopback loopback = fabric.pair(QueuePairType.RC);
        CompletionCounter counter = fabric.context().createCompletionCounter();
        loopback.responder().attachCompletionCounter(counter, Set.of(CompletionCounterOp.RECV));
        loopback.connect(fabric.connectOptions());
        MemoryRegion buffer = fabric.region(64);
        for (int i = 0; i < 3; i++) {
            loopback.responder().postReceive(new ReceiveWorkRequest().wrId(i).addSge(buffer, 0, 64));
        }

        loopback.responder().toError();

        assertThat(Completions.await(loopback.responderCq(), 3))
                .allSatisfy(c -> assertThat(c.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR));
        assertThat(counter.errors()).isEqualTo(3);
        assertThat(counter.completions()).isZero();
    }

    @Test
    void setAndIncrementChangeBothValues() {
        requireCounters();
        CompletionCounter counter = fabric.context().createCompletionCounter();
        assertThat(counter.completions()).isZero();
        assertThat(counter.errors()).isZero();

        counter.setCompletions(10);
        counter.incrementCompletions(5);
        counter.setErrors(7);
        counter.incrementErrors(2);

        assertThat(counter.completions()).isEqualTo(15);
        assertThat(counter.errors()).isEqualTo(9);
    }

    @Test
    void incrementsPastTheMaximumWrapToZero() {
        requireCounters();
        CompletionCounter counter = fabric.context().createCompletionCounter();
        long max = counter.maxValue();
        assertThat(max).isEqualTo(fabric.deviceAttributes().completionCounterMaxValue());

        counter.setCompletions(max);
        counter.incrementCompletions(1);
        counter.setErrors(max - 1);
        counter.incrementErrors(3);

        assertThat(counter.completions()).isZero();
        assertThat(counter.errors()).isEqualTo(1);
    }

    @Test
    void attachingIsAllowedOnlyInResetOrInit() {
        requireOps(CompletionCounterOp.SEND, CompletionCounterOp.RECV, CompletionCounterOp.RDMA_WRITE);
        Loopback loopback = fabric.pair(QueuePairType.RC);
        QueuePair requester = loopback.requester();
        QueuePair responder = loopback.responder();
        ConnectOptions options = fabric.connectOptions();

        requester.attachCompletionCounter(fabric.context().createCompletionCounter(), Set.of(CompletionCounterOp.SEND));
        responder.toInit(options);
        responder.attachCompletionCounter(fabric.context().createCompletionCounter(), Set.of(CompletionCounterOp.RECV));
        loopback.connect(options);

        CompletionCounter late = fabric.context().createCompletionCounter();
        VerbsErrors.expectFailure("ibv_qp_attach_comp_cntr", Errno.EINVAL,
                () -> requester.attachCompletionCounter(late, Set.of(CompletionCounterOp.RDMA_WRITE)));
        assertThat(late.attachedQueuePairs()).isEmpty();
    }

    @Test
    void overlappingOpMasksOnOneQueuePairAreBusy() {
        requireOps(CompletionCounterOp.SEND, CompletionCounterOp.RECV, CompletionCounterOp.RDMA_WRITE);
        QueuePair qp = fabric.pair(QueuePairType.RC).requester();
        qp.attachCompletionCounter(fabric.context().createCompletionCounter(),
                EnumSet.of(CompletionCounterOp.SEND, CompletionCounterOp.RECV));

        CompletionCounter overlapping = fabric.context().createCompletionCounter();
        VerbsErrors.expectFailure("ibv_qp_attach_comp_cntr", Errno.EBUSY, () -> qp.attachCompletionCounter(
                overlapping, EnumSet.of(CompletionCounterOp.RECV, CompletionCounterOp.RDMA_WRITE)));
        qp.attachCompletionCounter(overlapping, EnumSet.of(CompletionCounterOp.RDMA_WRITE));
        assertThat(overlapping.attachedQueuePairs()).containsExactly(qp);
    }

    @Test
    void oneCounterOnTwoQueuePairsAccumulatesBoth() {
        requireOps(CompletionCounterOp.SEND);
        Loopback loopback = fabric.pair(QueuePairType.RC);
        CompletionCounter counter = fabric.context().createCompletionCounter();
        loopback.requester().attachCompletionCounter(counter, Set.of(CompletionCounterOp.SEND));
        loopback.responder().attachCompletionCounter(counter, Set.of(CompletionCounterOp.SEND));
        loopback.connect(fabric.connectOptions());

        new Traffic(fabric, loopback).sends(3);
        new Traffic(fabric, new Loopback(fabric, loopback.responder(), loopback.requester())).sends(2);

        assertThat(counter.completions()).isEqualTo(5);
        assertThat(counter.attachedQueuePairs()).containsExactlyInAnyOrder(loopback.requester(), loopback.responder());
    }

    @Test
    void counterAttachedToALiveQueuePairCannotBeDestroyed() {
        requireOps(CompletionCounterOp.SEND);
        QueuePair qp = fabric.pair(QueuePairType.RC).requester();
        CompletionCounter counter = fabric.context().createCompletionCounter();
        qp.attachCompletionCounter(counter, Set.of(CompletionCounterOp.SEND));

        VerbsErrors.expectFailure("ibv_destroy_comp_cntr", Errno.EBUSY, counter::close);

        assertThat(counter.isClosed()).isFalse();
        assertThat(counter.completions()).isZero();
    }

    @Test
    void readsSetsAndIncrementsRacingACloseEndWithResourceClosed() throws Exception {
        requireCounters();
        for (int round = 0; round < 200; round++) {
            CompletionCounter counter = fabric.context().createCompletionCounter();

            Throwable ended = CloseRace.closeWhileUsed(counter, () -> {
                counter.incrementCompletions(1);
                counter.completions();
                counter.setErrors(0);
                counter.errors();
            });

            assertThat(ended).as("round %d", round).isInstanceOf(ResourceClosedException.class);
        }
    }

    @Test
    void counterCanBeDestroyedOnceItsQueuePairIsGone() {
        requireOps(CompletionCounterOp.SEND);
        QueuePair qp = fabric.pair(QueuePairType.RC).requester();
        CompletionCounter counter = fabric.context().createCompletionCounter();
        qp.attachCompletionCounter(counter, Set.of(CompletionCounterOp.SEND));

        qp.close();
        counter.close();

        assertThat(counter.isClosed()).isTrue();
        assertThat(fabric.verbs().liveObjects().get(ResourceKind.COMPLETION_COUNTER)).isZero();
    }

    @Test
    void externalMemoryHoldsTheLiveValues() {
        requireOps(CompletionCounterOp.SEND);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment completions = arena.allocate(JAVA_LONG);
            MemorySegment errors = arena.allocate(JAVA_LONG);
            Loopback loopback = fabric.pair(QueuePairType.RC);
            CompletionCounter counter = fabric.context().createCompletionCounter(
                    CompletionCounterOptions.externalMemory(completions, errors));
            loopback.requester().attachCompletionCounter(counter, Set.of(CompletionCounterOp.SEND));
            loopback.connect(fabric.connectOptions());

            new Traffic(fabric, loopback).sends(3);
            counter.incrementErrors(7);

            assertThat(completions.get(JAVA_LONG, 0)).isEqualTo(3).isEqualTo(counter.completions());
            assertThat(errors.get(JAVA_LONG, 0)).isEqualTo(7).isEqualTo(counter.errors());
            // The counter writes into the arena, so it must be gone before the arena is freed.
            fabric.context().close();
        }
    }

    private void requireCounters() {
        assumeTrue(fabric.deviceAttributes().supportsCompletionCounters(), "the device has no completion counters");
    }

    private void requireOps(CompletionCounterOp... ops) {
        requireCounters();
        Set<CompletionCounterOp> supported = fabric.deviceAttributes().supportedCompletionCounterOps();
        for (CompletionCounterOp op : ops) {
            assumeTrue(supported.contains(op), "the device cannot count " + op);
        }
    }
}

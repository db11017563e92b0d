package io.rdma.verbs.loopback;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.VerbsException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.EnumSet;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** 64-bit remote atomics (verbs manual §7.1.4): the old value comes back, the remote word changes as asked. */
class AtomicsTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    private Loopback loopback;
    private MemoryRegion remote;
    private MemoryRegion result;

    @BeforeEach
    void connect() {
        assumeTrue(fabric.deviceAttributes().supportsAtomics(), "the device reports no atomics");
        loopback = fabric.connectedPair(QueuePairType.RC);
        remote = fabric.region(64);
        result = fabric.region(64);
        remote.segment().set(JAVA_LONG, 8, 42);
    }

    @Test
    void compareAndSwapSwapsWhenTheComparandMatches() {
        Completion done = post(SendOpcode.ATOMIC_CMP_AND_SWP, 42, 99);

        assertThat(done.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(done.opcode()).isEqualTo(CompletionOpcode.COMP_SWAP);
        assertThat(result.segment().get(JAVA_LONG, 0)).as("old value").isEqualTo(42);
        assertThat(remote.segment().get(JAVA_LONG, 8)).as("new remote value").isEqualTo(99);
    }

    @Test
    void compareAndSwapLeavesTheWordWhenTheComparandDiffers() {
        Completion done = post(SendOpcode.ATOMIC_CMP_AND_SWP, 41, 99);

        assertThat(done.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(result.segment().get(JAVA_LONG, 0)).as("old value").isEqualTo(42);
        assertThat(remote.segment().get(JAVA_LONG, 8)).as("remote value").isEqualTo(42);
    }

    @Test
    void fetchAndAddReturnsTheValueBeforeTheAddition() {
        Completion first = post(SendOpcode.ATOMIC_FETCH_AND_ADD, 5, 0);
        assertThat(first.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(first.opcode()).isEqualTo(CompletionOpcode.FETCH_ADD);
        assertThat(result.segment().get(JAVA_LONG, 0)).isEqualTo(42);

        Completion second = post(SendOpcode.ATOMIC_FETCH_AND_ADD, 5, 0);
        assertThat(second.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(result.segment().get(JAVA_LONG, 0)).isEqualTo(47);
        assertThat(remote.segment().get(JAVA_LONG, 8)).isEqualTo(52);
    }

    @Test
    void misalignedRemoteAddressIsAnInvalidRequest() {
        SendWorkRequest misaligned = new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.ATOMIC_FETCH_AND_ADD)
                .atomic(1, 0).addSge(result, 0, 8).remote(remote.remote(4, 8));

        VerbsException refusedAtPost = catchThrowableOfType(VerbsException.class,
                () -> loopback.requester().postSend(misaligned));

        if (refusedAtPost == null) {
            Completion done = Completions.awaitOne(loopback.requesterCq());
            assertThat(done.status()).isEqualTo(CompletionStatus.REM_INV_REQ_ERR);
            QueuePairStates.awaitState(loopback.requester(), QueuePairState.ERR);
        } else {
            // A device may check the alignment when the WR is posted (rxe does); the simulated fabric
            // leaves it to the responder, as the verbs manual's completion status table describes.
            assertThat(fabric.isSimulated()).as("refused at post on the simulated fabric: %s", refusedAtPost)
                    .isFalse();
            VerbsErrors.assertFailure(refusedAtPost, "ibv_post_send", Errno.EINVAL);
            assertThat(loopback.requester().outstandingSends()).isZero();
        }
        assertThat(remote.segment().get(JAVA_LONG, 8)).isEqualTo(42);
    }

    @Test
    void regionWithoutRemoteAtomicIsARemoteAccessError() {
        MemoryRegion noAtomics = fabric.region(64, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ,
                AccessFlag.REMOTE_WRITE));
        noAtomics.segment().set(JAVA_LONG, 0, 42);
        loopback.requester().postSend(new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.ATOMIC_FETCH_AND_ADD)
                .atomic(1, 0).addSge(result, 0, 8).remote(noAtomics.remote(0, 8)));

        assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.REM_ACCESS_ERR);
        assertThat(noAtomics.segment().get(JAVA_LONG, 0)).isEqualTo(42);
    }

    @Test
    void localBufferOtherThanEightBytesIsRefusedAtPost() {
        VerbsErrors.expectFailure("ibv_post_send", Errno.EINVAL, () -> loopback.requester().postSend(
                new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                        .opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).atomic(1, 0)
                        .addSge(result, 0, 4).remote(remote.remote(8, 8))));
        assertThat(loopback.requester().outstandingSends()).isZero();
    }

    private Completion post(SendOpcode opcode, long compareOrAdd, long swap) {
        loopback.requester().postSend(new SendWorkRequest().wrId(opcode.value()).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(opcode)
                .atomic(compareOrAdd, swap).addSge(result, 0, 8).remote(remote.remote(8, 8)));
        Completion done = Completions.awaitOne(loopback.requesterCq());
        assertThat(done.wrId()).isEqualTo(opcode.value());
        return done;
    }
}

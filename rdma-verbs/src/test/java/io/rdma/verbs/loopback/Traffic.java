package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;

import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs a number of successful operations of one kind over a connected RC loopback and waits for them. */
final class Traffic {

    private final Loopback loopback;
    private final MemoryRegion local;
    private final MemoryRegion remote;
    private long nextWrId = 1;

    Traffic(LoopbackFabric fabric, Loopback loopback) {
        this.loopback = loopback;
        this.local = fabric.region(4096);
        this.remote = fabric.region(4096);
    }

    /** {@code count} sends into as many receives, from requester to responder. */
    void sends(int count) {
        for (int i = 0; i < count; i++) {
            loopback.responder().postReceive(new ReceiveWorkRequest().wrId(nextWrId).addSge(remote, 0, 4096));
            loopback.requester().postSend(new SendWorkRequest().wrId(nextWrId++).flags(EnumSet.of(SendFlag.SIGNALED))
                    .addSge(local, 0, 128));
        }
        expectSuccess(Completions.await(loopback.requesterCq(), count));
        expectSuccess(Completions.await(loopback.responderCq(), count));
    }

    /** {@code count} RDMA writes of 128 bytes into the responder's region. */
    void writes(int count) {
        oneSided(SendOpcode.RDMA_WRITE, count);
    }

    /** {@code count} RDMA reads of 128 bytes from the responder's region. */
    void reads(int count) {
        oneSided(SendOpcode.RDMA_READ, count);
    }

    private void oneSided(SendOpcode opcode, int count) {
        for (int i = 0; i < count; i++) {
            loopback.requester().postSend(new SendWorkRequest().wrId(nextWrId++).flags(EnumSet.of(SendFlag.SIGNALED))
                    .opcode(opcode).addSge(local, 0, 128)
                    .remote(remote.remote(0, 128)));
        }
        expectSuccess(Completions.await(loopback.requesterCq(), count));
    }

    private static void expectSuccess(List<Completion> completions) {
        assertThat(completions).allSatisfy(c -> assertThat(c.status()).isEqualTo(CompletionStatus.SUCCESS));
    }
}

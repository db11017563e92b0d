package io.rdma.verbs.loopback;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.RemoteBuffer;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Errors found while a work request executes: they complete in error (they are not thrown) and
 * move the QP to ERR, as the completion status table of verbs manual §5.3 describes.
 */
class RemoteAccessErrorTest {

    @RegisterExtension
    final LoopbackFabric fabric = new LoopbackFabric();

    private Loopback loopback;
    private MemoryRegion local;

    @BeforeEach
    void connect() {
        loopback = fabric.connectedPair(QueuePairType.RC);
        local = fabric.region(4096);
        Payloads.fill(local.segment(), 0, 4096, 70);
    }

    @Test
    void writeIntoRegionWithoutRemoteWriteIsARemoteAccessError() throws InterruptedException {
        assumeRequesterHearsOfResponderErrors();
        MemoryRegion readOnly = fabric.region(4096, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ));
        readOnly.segment().fill((byte) 0x33);

        Completion failed = oneSided(SendOpcode.RDMA_WRITE, readOnly.remote(0, 128));

        assertThat(failed.status()).isEqualTo(CompletionStatus.REM_ACCESS_ERR);
        assertThat(loopback.requester().state()).isEqualTo(QueuePairState.ERR);
        assertThat(fabric.awaitEvent(AsyncEventType.QP_ACCESS_ERR, e -> e.resource() == loopback.responder()))
                .isNotNull();
        assertThat(loopback.responder().state()).isEqualTo(QueuePairState.ERR);
        assertThat(readOnly.segment().asSlice(0, 128).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                .containsOnly((byte) 0x33);
    }

    @Test
    void readFromRegionWithoutRemoteReadIsARemoteAccessError() {
        assumeFalse(fabric.isIwarp(), fabric.deviceName() + " is siw, whose responder sends read responses without"
                + " checking the region's REMOTE_READ (siw_qp_tx.c: \"w/o checking access\"): the read succeeds");
        MemoryRegion writeOnly = fabric.region(4096, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE));

        assertThat(oneSided(SendOpcode.RDMA_READ, writeOnly.remote(0, 128)).status())
                .isEqualTo(CompletionStatus.REM_ACCESS_ERR);
        assertThat(loopback.requester().state()).isEqualTo(QueuePairState.ERR);
    }

    @Test
    void unknownRkeyIsARemoteAccessError() {
        assumeRequesterHearsOfResponderErrors();
        MemoryRegion target = fabric.region(4096);
        RemoteBuffer forged = new RemoteBuffer(target.address(), target.rkey() ^ 0x00AB_CD00, 128);

        assertThat(oneSided(SendOpcode.RDMA_WRITE, forged).status()).isEqualTo(CompletionStatus.REM_ACCESS_ERR);
    }

    @Test
    void rangeBeyondTheRegionIsARemoteAccessError() {
        assumeRequesterHearsOfResponderErrors();
        MemoryRegion target = fabric.region(4096);
        RemoteBuffer overrun = new RemoteBuffer(target.address() + 4096 - 64, target.rkey(), 128);

        assertThat(oneSided(SendOpcode.RDMA_WRITE, overrun).status()).isEqualTo(CompletionStatus.REM_ACCESS_ERR);
    }

    @Test
    void rkeyOfAnotherProtectionDomainIsARemoteAccessError() {
        assumeRequesterHearsOfResponderErrors();
        ProtectionDomain other = fabric.context().allocateProtectionDomain();
        MemoryRegion foreign = other.allocateMemory(4096, LoopbackFabric.ALL_ACCESS);

        assertThat(oneSided(SendOpcode.RDMA_WRITE, foreign.remote(0, 128)).status())
                .isEqualTo(CompletionStatus.REM_ACCESS_ERR);
    }

    @Test
    void unknownLkeyIsALocalProtectionError() {
        MemoryRegion target = fabric.region(4096);
        loopback.requester().postSend(new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.RDMA_WRITE)
                .addSge(local.address(), 128, local.lkey() ^ 0x00AB_CD00).remote(target.remote(0, 128)));

        assertFailedInto(Completions.awaitOne(loopback.requesterCq()), CompletionStatus.LOC_PROT_ERR,
                loopback.requester());
    }

    @Test
    void localRangeBeyondItsRegionIsALocalProtectionError() {
        MemoryRegion target = fabric.region(4096);
        loopback.requester().postSend(new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.RDMA_WRITE)
                .addSge(local.address() + 4096 - 64, 128, local.lkey()).remote(target.remote(0, 128)));

        assertFailedInto(Completions.awaitOne(loopback.requesterCq()), CompletionStatus.LOC_PROT_ERR,
                loopback.requester());
    }

    @Test
    void receiveIntoRegionWithoutLocalWriteIsALocalProtectionError() {
        MemoryRegion notWritable = fabric.region(4096, EnumSet.of(AccessFlag.REMOTE_READ));
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(4).addSge(notWritable, 0, 4096));
        loopback.requester().postSend(new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(local, 0, 64));

        Completion receiver = Completions.awaitOne(loopback.responderCq());
        assertThat(receiver.wrId()).isEqualTo(4);
        assertFailedInto(receiver, CompletionStatus.LOC_PROT_ERR, loopback.responder());
    }

    @Test
    void readIntoRegionWithoutLocalWriteIsALocalProtectionError() {
        MemoryRegion source = fabric.region(4096);
        MemoryRegion notWritable = fabric.region(4096, EnumSet.of(AccessFlag.REMOTE_READ));
        loopback.requester().postSend(new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(SendOpcode.RDMA_READ)
                .addSge(notWritable, 0, 128).remote(source.remote(0, 128)));

        assertThat(Completions.awaitOne(loopback.requesterCq()).status()).isEqualTo(CompletionStatus.LOC_PROT_ERR);
    }

    @Test
    void messageLargerThanTheReceiveBufferFailsBothSides() {
        assumeRequesterHearsOfResponderErrors();
        MemoryRegion small = fabric.region(64);
        loopback.responder().postReceive(new ReceiveWorkRequest().wrId(2).addSge(small, 0, 16));
        loopback.requester().postSend(new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(local, 0, 64));

        Completion receiver = Completions.awaitOne(loopback.responderCq());
        Completion sender = Completions.awaitOne(loopback.requesterCq());
        assertThat(receiver.wrId()).isEqualTo(2);
        assertFailedInto(receiver, CompletionStatus.LOC_LEN_ERR, loopback.responder());
        assertThat(sender.wrId()).isEqualTo(1);
        assertFailedInto(sender, CompletionStatus.REM_INV_REQ_ERR, loopback.requester());
    }

    @Test
    void datagramAboveThePortMtuIsALocalLengthError() {
        assumeTrue(fabric.isSimulated(), "a device may send a UD message above the MTU (rxe completes it with "
                + "SUCCESS); only the simulated fabric enforces the verbs manual's limit");
        Loopback datagrams = fabric.connectedPair(QueuePairType.UD);
        int mtu = fabric.portAttributes().activeMtu().bytes();
        MemoryRegion large = fabric.region(mtu + 1);
        var ah = fabric.pd().createAddressHandle(datagrams.responder()
                .localEndpoint(fabric.connectOptions()).addressVector(fabric.connectOptions()));
        MemoryRegion target = fabric.region(mtu + 41);
        datagrams.responder().postReceive(new ReceiveWorkRequest().wrId(1).addSge(target, 0, mtu + 41));

        datagrams.requester().postSend(new SendWorkRequest().wrId(9).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(large, 0, mtu + 1)
                .datagram(ah, datagrams.responder().qpNumber(), fabric.connectOptions().qkey()));

        Completion failed = Completions.awaitOne(datagrams.requesterCq());
        assertThat(failed.wrId()).isEqualTo(9);
        assertThat(failed.status()).isEqualTo(CompletionStatus.LOC_LEN_ERR);
        assertThat(Completions.pollNow(datagrams.responderCq())).isEmpty();
    }

    /**
     * The completion reports a failure and its QP goes to ERR. The simulated fabric gives the exact
     * status of the verbs manual's completion status table; a device may report the same fault with
     * another error status (rxe: {@code LOC_QP_OP_ERR}, or {@code WR_FLUSH_ERR} when it moved the QP
     * to ERR before completing the faulty WR), so there any error status is accepted. A device may
     * also write the error completion before its QP has left RTS (rxe's responder), hence the
     * bounded wait for the state.
     */
    private void assertFailedInto(Completion completion, CompletionStatus onTheSimulatedFabric, QueuePair qp) {
        if (fabric.isSimulated()) {
            assertThat(completion.status()).isEqualTo(onTheSimulatedFabric);
        } else {
            assertThat(completion.status()).as("status of %s (the simulated fabric gives %s)", completion,
                    onTheSimulatedFabric).isNotEqualTo(CompletionStatus.SUCCESS);
        }
        assumeFalse(fabric.isIwarp(), fabric.deviceName() + " (siw, iWARP) completed the WR with " + completion.status()
                + " but keeps the QP in RTS (observed: still RTS 10 s later), where the IB spec moves it to ERR");
        long deadline = System.nanoTime() + LoopbackFabric.WAIT.toNanos();
        while (qp.state() != QueuePairState.ERR && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(qp.state()).as("state of %s", qp).isEqualTo(QueuePairState.ERR);
    }

    /**
     * iWARP completes an RDMA write or a send at the requester once TCP has taken it (RFC 5040's
     * placement is the responder's business): the responder's access error reaches the requester
     * later, as a TERMINATE message, not as this WR's status.
     */
    private void assumeRequesterHearsOfResponderErrors() {
        assumeFalse(fabric.isIwarp(), fabric.deviceName() + " is iWARP: a write or send completes at the requester"
                + " once TCP has taken it, so the responder's error is not its status (it comes later, as a TERMINATE)");
    }

    private Completion oneSided(SendOpcode opcode, RemoteBuffer remote) {
        loopback.requester().postSend(new SendWorkRequest().wrId(1).flags(EnumSet.of(SendFlag.SIGNALED))
                .opcode(opcode).addSge(local, 0, 128).remote(remote));
        Completion completion = Completions.awaitOne(loopback.requesterCq());
        assertThat(completion.wrId()).isEqualTo(1);
        return completion;
    }
}

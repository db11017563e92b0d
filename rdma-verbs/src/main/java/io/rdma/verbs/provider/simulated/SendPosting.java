package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.TransportType;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.spi.AddressHandleResolver;

import org.jspecify.annotations.Nullable;

/**
 * The checks of {@code ibv_post_send}: each WR of a chain against the QP's state, type and
 * capabilities and the device, before it takes a send-queue slot in {@link PendingSends}.
 * A WR refused with an errno ends the chain there, and the WRs before it stay posted, as
 * libibverbs' providers post them and name the refused one in {@code bad_wr}. Send lock held.
 */
final class SendPosting {

    private final SimulatedQp qp;
    private final int rawFrameCapacity;

    SendPosting(SimulatedQp qp, int rawFrameCapacity) {
        this.qp = qp;
        this.rawFrameCapacity = rawFrameCapacity;
    }

    /**
     * Copies the chain from {@code first} into the send queue, finding datagrams' address handles
     * through {@code addressHandles}. Returns null when the whole chain was taken, or the refusal
     * of the first WR that was not ({@code bad_wr}, counting the WRs posted before it), which the
     * caller throws once those have run. A failure without an errno (a closed address handle)
     * takes the whole chain back and is thrown here.
     */
    @Nullable VerbsException admit(SendWorkRequest first, QueuePairState current,
                                   AddressHandleResolver addressHandles) {
        PendingSends pending = qp.pending;
        int added = 0;
        try {
            for (SendWorkRequest wr = first; wr != null; wr = wr.next()) {
                if (current != QueuePairState.RTS && current != QueuePairState.ERR) {
                    throw new VerbsException("ibv_post_send", Errno.EINVAL, "QP 0x"
                            + Integer.toHexString(qp.qpNumber()) + " is in " + current + "; sends need RTS",
                            "finish the RESET -> INIT -> RTR -> RTS walk (QueuePair.connect) before posting sends")
                            .withBadWorkRequest(wr.wrId());
                }
                SimulatedAh addressHandle = validate(wr, addressHandles);
                if (pending.isFull()) {
                    throw new VerbsException("ibv_post_send", Errno.ENOMEM, "the send queue holds its maximum of "
                            + qp.capabilities().maxSendWr() + " WRs", null).withBadWorkRequest(wr.wrId());
                }
                pending.add(wr, addressHandle, wr.hasFlag(SendFlag.INLINE));
                added++;
            }
            return null;
        } catch (VerbsException refused) {
            return refused.withBadWorkRequest(refused.badWorkRequestId(), added);
        } catch (RuntimeException | Error failure) {
            pending.removeNewest(added);
            throw failure;
        }
    }

    private @Nullable SimulatedAh validate(SendWorkRequest wr, AddressHandleResolver addressHandles) {
        QueuePairType type = qp.type;
        QueuePairCapabilities capabilities = qp.capabilities();
        SimulatedDevice device = qp.device();
        SendOpcode opcode = wr.opcode();
        if (!opcode.allowedOn(type)) {
            throw invalidWr(wr, opcode + " is not valid on a " + type + " QP (verbs manual §7.1 opcode table)");
        }
        if (device.spec().transport() == TransportType.IWARP && opcode.carriesImmediateData()) {
            // iWARP has no immediate data (RFC 5040): libsiw refuses the opcode it cannot map, with EINVAL
            throw invalidWr(wr, device.name() + " is iWARP, which carries no immediate data: " + opcode
                    + " is not supported");
        }
        if (wr.sgeCount() > capabilities.maxSendSge()) {
            throw invalidWr(wr, wr.sgeCount() + " SGEs exceed max_send_sge " + capabilities.maxSendSge());
        }
        if (wr.hasFlag(SendFlag.INLINE)) {
            if (opcode == SendOpcode.RDMA_READ || opcode.isAtomic()) {
                throw invalidWr(wr, "IBV_SEND_INLINE is only for SEND and RDMA_WRITE");
            }
            if (wr.totalLength() > capabilities.maxInlineData()) {
                throw invalidWr(wr, wr.totalLength() + " inline bytes exceed max_inline_data "
                        + capabilities.maxInlineData());
            }
        }
        if (opcode.isAtomic()) {
            if (!device.spec().atomics()) {
                throw invalidWr(wr, device.name() + " reports atomic_cap NONE");
            }
            if (wr.sgeCount() != 1 || wr.sgeLength(0) != Long.BYTES) {
                throw invalidWr(wr, "an atomic needs exactly one 8-byte SGE for the original value");
            }
        }
        if (type == QueuePairType.RAW_PACKET && wr.totalLength() > rawFrameCapacity) {
            throw invalidWr(wr, "a raw frame of " + wr.totalLength() + " bytes exceeds the port MTU");
        }
        if (type != QueuePairType.UD) {
            return null;
        }
        if (wr.addressHandle() == null) {
            throw invalidWr(wr, "a UD send needs an address handle (SendWorkRequest.datagram)");
        }
        SimulatedAh addressHandle = (SimulatedAh) addressHandles.resolve(wr.addressHandle());
        if (addressHandle.pd() != qp.pd) {
            throw invalidWr(wr, "the address handle belongs to another protection domain");
        }
        return addressHandle;
    }

    private static VerbsException invalidWr(SendWorkRequest wr, String detail) {
        return new VerbsException("ibv_post_send", Errno.EINVAL, detail, null).withBadWorkRequest(wr.wrId());
    }
}

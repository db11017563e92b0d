package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AddressVector;
import io.rdma.verbs.api.CompletionCounterOp;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.GlobalRoute;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.WorkCompletion;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The UD and raw packet transport: a UD send goes to the QP its address handle and remote QPN
 * name (with a GRH when the route is global, steered by the destination's flows on Ethernet),
 * a raw frame to every active Ethernet port, where flows steer it. A datagram that finds no
 * taker is dropped, and the send succeeds anyway.
 */
final class DatagramTransport extends QpTransport {

    private static final int GRH_BYTES = 40;
    private static final int RAW_FRAME_OVERHEAD = 64;

    private final SgeCursor grhSource = new SgeCursor(1);
    private final MemorySegment grh = MemorySegment.ofArray(new byte[GRH_BYTES]);
    private final byte[] frame;
    private final MemorySegment frameMemory;
    private final FrameHeaders headers = new FrameHeaders();

    DatagramTransport(SimulatedQp qp) {
        super(qp);
        this.frame = new byte[rawFrameCapacity(qp.device())];
        this.frameMemory = MemorySegment.ofArray(frame);
    }

    /** The longest raw frame a QP of {@code device} sends: the port MTU and the headers. */
    static int rawFrameCapacity(SimulatedDevice device) {
        return device.spec().mtu().bytes() + RAW_FRAME_OVERHEAD;
    }

    @Override
    Outcome execute(int slot) {
        return type == QueuePairType.UD ? executeDatagram(slot) : executeRawFrame(slot);
    }

    private Outcome executeDatagram(int slot) {
        if (!resolveLocal(slot, source.clear(), false)) {
            return failLocally(slot, CompletionStatus.LOC_PROT_ERR);
        }
        long length = source.total();
        SimulatedPort port = attributes.boundPort();
        if (length > port.activeMtuBytes()) {
            return failLocally(slot, CompletionStatus.LOC_LEN_ERR);
        }
        // a UD send has its address handle: SendPosting refuses one without
        AddressVector av = Objects.requireNonNull(pending.addressHandles[slot]).addressVector();
        SimulatedPort destination = fabric.route(av);
        SimulatedQp peer = fabric.queuePairs().get(pending.remoteQpNumbers[slot]);
        if (destination == null || peer == null || peer.type != QueuePairType.UD
                || peer.attributes.port != destination || !peer.acceptsIncoming()
                || peer.attributes.qkey != pending.remoteQkeys[slot] || !port.carries(destination)) {
            return complete(slot, CompletionStatus.SUCCESS, 0);
        }
        tally.add(port, destination, 1, length);
        GlobalRoute route = av.globalRoute();
        if (route != null) {
            Gid sourceGid = port.gids().get(route.sourceGidIndex());
            writeGrh(route, sourceGid, length);
            if (destination.isEthernet()) {
                headers.roceV2(sourceGid.ipv4(), route.destinationGid().ipv4(),
                        0xC000 | (qp.qpNumber() & 0x3FFF));
                steer(destination, peer, length);
            }
        } else {
            grh.fill((byte) 0);
        }
        ReceiveQueue queue = peer.receiveQueue;
        queue.lock().lock();
        try {
            if (!queue.isEmpty()) {
                CompletionStatus status = peer.responder.scatterIntoHead(queue,
                        grhSource.clear().add(grh, 0, GRH_BYTES), target, GRH_BYTES, length);
                if (status == CompletionStatus.SUCCESS) {
                    status = peer.responder.copyIntoHead(queue, source, target, length);
                }
                if (status == CompletionStatus.SUCCESS) {
                    peer.completions.completeReceive(queue, CompletionOpcode.RECV, length + GRH_BYTES,
                            pending.immediates[slot], (av.isGlobal() ? WorkCompletion.FLAG_GRH : 0)
                                    | (pending.opcodes[slot] == SendOpcode.SEND_WITH_IMM
                                            ? WorkCompletion.FLAG_WITH_IMM : 0),
                            qp.qpNumber(), port.lid(), pending.flags[slot], CompletionCounterOp.RECV);
                }
            }
        } finally {
            queue.lock().unlock();
        }
        return complete(slot, CompletionStatus.SUCCESS, length);
    }

    /** Fills the 40-byte GRH a UD receiver finds before the payload (IBA 8.3). */
    private void writeGrh(GlobalRoute route, Gid sourceGid, long payload) {
        int versionClassFlow = (6 << 28) | ((route.trafficClass() & 0xFF) << 20) | (route.flowLabel() & 0xFFFFF);
        grh.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 0, versionClassFlow);
        grh.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 4, (short) payload);
        grh.set(ValueLayout.JAVA_BYTE, 6, (byte) 0x1B);
        grh.set(ValueLayout.JAVA_BYTE, 7, (byte) route.hopLimit());
        for (int i = 0; i < Gid.LENGTH; i++) {
            grh.set(ValueLayout.JAVA_BYTE, 8 + i, sourceGid.byteAt(i));
            grh.set(ValueLayout.JAVA_BYTE, 24 + i, route.destinationGid().byteAt(i));
        }
    }

    private Outcome executeRawFrame(int slot) {
        if (!resolveLocal(slot, source.clear(), false)) {
            return failLocally(slot, CompletionStatus.LOC_PROT_ERR);
        }
        int length = (int) source.total();
        source.copyTo(grhSource.clear().add(frameMemory, 0, length), length);
        headers.parse(frame, length);
        SimulatedPort port = attributes.boundPort();
        if (port.isActive()) {
            port.transmitFrame(length);
            for (SimulatedPort destination : fabric.ethernetPorts()) {
                if (destination.isActive()) {
                    steer(destination, null, length);
                }
            }
        }
        return complete(slot, CompletionStatus.SUCCESS, length);
    }

    /**
     * Applies the flows of {@code destination} to {@link #headers}: the first match (by
     * priority) counts the packet and, for a raw frame ({@code datagramTarget} null), delivers
     * it to the flow's QP. For a datagram only flows of its destination QP apply.
     */
    private void steer(SimulatedPort destination, @Nullable SimulatedQp datagramTarget, long length) {
        for (SimulatedFlow flow : destination.flows()) {
            if ((datagramTarget == null || flow.qp() == datagramTarget) && headers.matches(flow.spec())) {
                flow.counted(length);
                if (datagramTarget == null) {
                    destination.receiveFrame(length);
                    flow.qp().responder.acceptFrame(grhSource.rewind(), target, length);
                }
                return;
            }
        }
    }
}

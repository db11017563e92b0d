package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.AddressHandle;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.spi.AddressHandleResolver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SEND_WR_ATOMIC_COMPARE_ADD;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SEND_WR_ATOMIC_REMOTE_ADDR;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SEND_WR_ATOMIC_RKEY;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SEND_WR_ATOMIC_SWAP;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SEND_WR_FLAGS;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SEND_WR_ID;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SEND_WR_IMM_DATA;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SEND_WR_NEXT;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SEND_WR_NUM_SGE;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SEND_WR_OPCODE;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SEND_WR_RDMA_REMOTE_ADDR;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SEND_WR_RDMA_RKEY;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SEND_WR_SG_LIST;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SEND_WR_SIZE;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SEND_WR_UD_AH;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SEND_WR_UD_REMOTE_QKEY;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SEND_WR_UD_REMOTE_QPN;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.SGE_SIZE;
import static io.rdma.verbs.provider.ibverbs.DataPathLayout.writeSge;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import org.jspecify.annotations.Nullable;

/**
 * A QP's preallocated native {@code ibv_send_wr} chain and its {@code ibv_sge} lists, one slot
 * per send queue entry: a post copies the API's {@link SendWorkRequest} chain into it and
 * hands its head to {@code ibv_post_send}. Inline data is first copied, through the caller's
 * segments, into this array's own memory, so the provider library never reads memory whose
 * arena was closed. Used under the QP's send lock only.
 */
final class SendRequestArray {

    private final QueuePairType type;
    private final int capacity;
    private final int maxSge;
    private final int maxInlineData;
    private final MemorySegment requests;
    private final MemorySegment sges;
    /** Each slot's inline bytes, {@code maxInlineData} per slot. */
    private final MemorySegment inlineData;
    private final MemorySegment badRequest;

    SendRequestArray(Arena arena, QueuePairType type, QueuePairCapabilities granted) {
        this.type = type;
        this.capacity = Math.max(1, granted.maxSendWr());
        this.maxInlineData = granted.maxInlineData();
        this.maxSge = granted.maxSendSge();
        this.requests = arena.allocate(SEND_WR_SIZE * this.capacity, 8);
        this.sges = arena.allocate(SGE_SIZE * this.capacity * Math.max(1, maxSge), 8);
        this.inlineData = arena.allocate(Math.max(1L, (long) this.capacity * maxInlineData), 8);
        this.badRequest = arena.allocate(ValueLayout.ADDRESS);
    }

    MemorySegment head() {
        return requests;
    }

    MemorySegment badRequestSlot() {
        return badRequest;
    }

    /** Index in the chain of the WR {@code ibv_post_send} named in {@code *bad_wr}. */
    int badIndex() {
        long bad = badRequest.get(ValueLayout.ADDRESS, 0).address();
        return bad == 0 ? 0 : (int) ((bad - requests.address()) / SEND_WR_SIZE);
    }

    /**
     * Copies the chain, finding datagrams' address handles through {@code addressHandles};
     * returns its length. Refuses, naming the WR, what the device would refuse too (and what a
     * provider library may not check before touching memory, such as a datagram without an
     * address handle): a chain longer than the queue, more SGEs or inline bytes than granted, an
     * opcode the transport lacks; a closed address handle fails the post before anything reaches
     * the device.
     */
    int fill(SendWorkRequest first, AddressHandleResolver addressHandles) {
        int index = 0;
        for (SendWorkRequest wr = first; wr != null; wr = wr.next(), index++) {
            if (index == capacity) {
                throw invalid(Errno.ENOMEM, wr, "the chain is longer than the send queue (" + capacity + " entries)",
                        null);
            }
            if (wr.sgeCount() > maxSge) {
                throw invalid(Errno.EINVAL, wr, "a WR has " + wr.sgeCount() + " scatter/gather entries, the QP takes "
                        + maxSge, "create the QP with more send SGEs");
            }
            if (!wr.opcode().allowedOn(type)) {
                throw invalid(Errno.EINVAL, wr, wr
                        .opcode() + " on a " + type + " QP", "the transport does not offer it");
            }
            if (wr.hasFlag(SendFlag.INLINE) && wr.totalLength() > maxInlineData) {
                throw invalid(Errno.EINVAL, wr, wr.totalLength() + " inline bytes, the QP takes " + maxInlineData,
                        "create the QP with more inline data or send from registered memory");
            }
            if (type == QueuePairType.UD && wr.addressHandle() == null) {
                throw invalid(Errno.EINVAL, wr, "a datagram without an address handle",
                        "name the destination with SendWorkRequest.datagram(ah, qpn, qkey)");
            }
            write(index, wr, addressHandles);
        }
        return index;
    }

    private static VerbsException invalid(Errno errno, SendWorkRequest wr, String detail,
                                           @Nullable String advice) {
        return new VerbsException("ibv_post_send", errno, detail, advice).withBadWorkRequest(wr.wrId());
    }

    private void write(int index, SendWorkRequest wr, AddressHandleResolver addressHandles) {
        long at = index * SEND_WR_SIZE;
        long sgeAt = (long) index * maxSge * SGE_SIZE;
        requests.set(JAVA_LONG, at + SEND_WR_ID, wr.wrId());
        requests.set(JAVA_LONG, at + SEND_WR_NEXT, wr.next() == null ? 0 : requests.address() + at + SEND_WR_SIZE);
        requests.set(JAVA_LONG, at + SEND_WR_SG_LIST, wr.sgeCount() == 0 ? 0 : sges.address() + sgeAt);
        requests.set(JAVA_INT, at + SEND_WR_NUM_SGE, wr.sgeCount());
        requests.set(JAVA_INT, at + SEND_WR_OPCODE, wr.opcode().value());
        requests.set(JAVA_INT, at + SEND_WR_FLAGS, wr.flagMask());
        // imm_data is big-endian on the wire; the API speaks host values
        requests.set(JAVA_INT, at + SEND_WR_IMM_DATA, Integer.reverseBytes(wr.immediateData()));
        if (wr.hasFlag(SendFlag.INLINE)) {
            long inlineAt = (long) index * maxInlineData;
            for (int i = 0; i < wr.sgeCount(); i++) {
                wr.copySge(i, inlineData, inlineAt, "ibv_post_send");
                writeSge(sges, sgeAt + i * SGE_SIZE, inlineData.address() + inlineAt, wr.sgeLength(i), 0);
                inlineAt += wr.sgeLength(i);
            }
        } else {
            for (int i = 0; i < wr.sgeCount(); i++) {
                writeSge(sges, sgeAt + i * SGE_SIZE, wr.sgeAddress(i), wr.sgeLength(i), wr.sgeLkey(i));
            }
        }
        SendOpcode opcode = wr.opcode();
        if (opcode.isAtomic()) {
            requests.set(JAVA_LONG, at + SEND_WR_ATOMIC_REMOTE_ADDR, wr.remoteAddress());
            requests.set(JAVA_LONG, at + SEND_WR_ATOMIC_COMPARE_ADD, wr.compareAdd());
            requests.set(JAVA_LONG, at + SEND_WR_ATOMIC_SWAP, wr.swap());
            requests.set(JAVA_INT, at + SEND_WR_ATOMIC_RKEY, wr.rkey());
        } else if (opcode.accessesRemoteMemory()) {
            requests.set(JAVA_LONG, at + SEND_WR_RDMA_REMOTE_ADDR, wr.remoteAddress());
            requests.set(JAVA_INT, at + SEND_WR_RDMA_RKEY, wr.rkey());
        } else {
            AddressHandle ah = wr.addressHandle();
            long ahAddress = ah == null ? 0 : ((NativeAh) addressHandles.resolve(ah)).address();
            requests.set(JAVA_LONG, at + SEND_WR_UD_AH, ahAddress);
            requests.set(JAVA_INT, at + SEND_WR_UD_REMOTE_QPN, wr.remoteQpNumber());
            requests.set(JAVA_INT, at + SEND_WR_UD_REMOTE_QKEY, wr.remoteQkey());
        }
    }

    /** The WR at {@code index} of the chain starting at {@code first}. */
    static SendWorkRequest at(SendWorkRequest first, int index) {
        SendWorkRequest wr = first;
        for (int i = 0; i < index && wr.next() != null; i++) {
            wr = wr.next();
        }
        return wr;
    }
}

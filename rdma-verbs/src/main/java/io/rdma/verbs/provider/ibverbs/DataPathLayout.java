package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.provider.ibverbs.generated.ibv_recv_wr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_send_wr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_sge;
import io.rdma.verbs.provider.ibverbs.generated.ibv_wc;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * Sizes and offsets of the structs the data path fills and reads ({@code ibv_send_wr},
 * {@code ibv_recv_wr}, {@code ibv_sge}, {@code ibv_wc}), taken once from the generated
 * layouts, so posting and polling write plain values at fixed offsets of preallocated
 * arrays instead of slicing a segment per field (slices are objects).
 */
final class DataPathLayout {

    static final long SGE_SIZE = ibv_sge.sizeof();
    static final long SGE_ADDR = ibv_sge.addr$offset();
    static final long SGE_LENGTH = ibv_sge.length$offset();
    static final long SGE_LKEY = ibv_sge.lkey$offset();

    static final long SEND_WR_SIZE = ibv_send_wr.sizeof();
    static final long SEND_WR_ID = ibv_send_wr.wr_id$offset();
    static final long SEND_WR_NEXT = ibv_send_wr.next$offset();
    static final long SEND_WR_SG_LIST = ibv_send_wr.sg_list$offset();
    static final long SEND_WR_NUM_SGE = ibv_send_wr.num_sge$offset();
    static final long SEND_WR_OPCODE = ibv_send_wr.opcode$offset();
    static final long SEND_WR_FLAGS = ibv_send_wr.send_flags$offset();
    static final long SEND_WR_IMM_DATA = ibv_send_wr.imm_data$offset();
    static final long SEND_WR_RDMA_REMOTE_ADDR = sendWr("rdma", "remote_addr");
    static final long SEND_WR_RDMA_RKEY = sendWr("rdma", "rkey");
    static final long SEND_WR_ATOMIC_REMOTE_ADDR = sendWr("atomic", "remote_addr");
    static final long SEND_WR_ATOMIC_COMPARE_ADD = sendWr("atomic", "compare_add");
    static final long SEND_WR_ATOMIC_SWAP = sendWr("atomic", "swap");
    static final long SEND_WR_ATOMIC_RKEY = sendWr("atomic", "rkey");
    static final long SEND_WR_UD_AH = sendWr("ud", "ah");
    static final long SEND_WR_UD_REMOTE_QPN = sendWr("ud", "remote_qpn");
    static final long SEND_WR_UD_REMOTE_QKEY = sendWr("ud", "remote_qkey");

    static final long RECV_WR_SIZE = ibv_recv_wr.sizeof();
    static final long RECV_WR_ID = ibv_recv_wr.wr_id$offset();
    static final long RECV_WR_NEXT = ibv_recv_wr.next$offset();
    static final long RECV_WR_SG_LIST = ibv_recv_wr.sg_list$offset();
    static final long RECV_WR_NUM_SGE = ibv_recv_wr.num_sge$offset();

    static final long WC_SIZE = ibv_wc.sizeof();
    static final long WC_WR_ID = ibv_wc.wr_id$offset();
    static final long WC_STATUS = ibv_wc.status$offset();
    static final long WC_OPCODE = ibv_wc.opcode$offset();
    static final long WC_VENDOR_ERR = ibv_wc.vendor_err$offset();
    static final long WC_BYTE_LEN = ibv_wc.byte_len$offset();
    static final long WC_IMM_DATA = ibv_wc.imm_data$offset();
    static final long WC_QP_NUM = ibv_wc.qp_num$offset();
    static final long WC_SRC_QP = ibv_wc.src_qp$offset();
    static final long WC_FLAGS = ibv_wc.wc_flags$offset();
    static final long WC_PKEY_INDEX = ibv_wc.pkey_index$offset();
    static final long WC_SLID = ibv_wc.slid$offset();
    static final long WC_SL = ibv_wc.sl$offset();

    private DataPathLayout() {
    }

    private static long sendWr(String operation, String field) {
        MemoryLayout layout = ibv_send_wr.layout();
        return layout.byteOffset(groupElement("wr"), groupElement(operation), groupElement(field));
    }

    /** Writes one {@code ibv_sge} at {@code at} of {@code sges}. */
    static void writeSge(MemorySegment sges, long at, long address, int length, int lkey) {
        sges.set(ValueLayout.JAVA_LONG, at + SGE_ADDR, address);
        sges.set(ValueLayout.JAVA_INT, at + SGE_LENGTH, length);
        sges.set(ValueLayout.JAVA_INT, at + SGE_LKEY, lkey);
    }
}

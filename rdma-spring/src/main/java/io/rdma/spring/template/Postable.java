package io.rdma.spring.template;

import io.rdma.verbs.api.PooledBuffer;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;

import org.jspecify.annotations.Nullable;

/**
 * What {@link QueuePairOperations} posts, queues while the send queue is full, and settles when
 * its completion comes: a {@link TemplateOperation}, which is the future its caller holds, or a
 * {@link ForgottenSend}, which has none and is used again once settled.
 */
sealed interface Postable permits TemplateOperation, ForgottenSend {

    /** The operation as its failures name it. */
    default String name() {
        return nameOf(opcode());
    }

    /** How failures name an operation of {@code opcode}. */
    static String nameOf(SendOpcode opcode) {
        return switch (opcode) {
            case SEND -> "send";
            case SEND_WITH_IMM -> "send with immediate";
            case RDMA_WRITE -> "RDMA write";
            case RDMA_WRITE_WITH_IMM -> "RDMA write with immediate";
            case RDMA_READ -> "RDMA read";
            case ATOMIC_CMP_AND_SWP -> "compare-and-swap";
            case ATOMIC_FETCH_AND_ADD -> "fetch-and-add";
            default -> opcode.name();
        };
    }

    SendOpcode opcode();

    /** The bytes the operation's buffer holds: sent, written, or read into. */
    int payloadLength();

    /** The 32-bit value a send or write with immediate data carries; 0 for the others. */
    int immediateData();

    /**
     * Fills the leased buffer from byte {@code offset} on (past the in-band header of a channel
     * without immediate data: {@link RdmaWireFormat}) and the work request, whose opcode, wr_id
     * and entry are already set; the immediate data is the caller's to place.
     */
    void prepare(PooledBuffer buffer, int offset, SendWorkRequest wr);

    /** What the successful completion yields, read from the buffer before it is returned. */
    @Nullable Object outcome(PooledBuffer buffer);

    /**
     * Takes the operation for posting: false when its caller gave up, and then it must not be
     * posted. A claimed operation whose post found no room is {@link #unclaim() unclaimed}.
     */
    boolean claim();

    /** The post found no room after all: the operation waits again, and its caller may give up again. */
    void unclaim();

    /** Whether it must not be posted any more: its caller gave up, or it was settled while it waited. */
    boolean withdrawn();

    /** Whether it is settled by a reply rather than by the send's completion. */
    boolean awaitsReply();

    /** Settles it with the outcome of its completion. */
    void succeed(@Nullable Object value);

    /** Settles it with a failure: a completion status, a refused post, a timeout. */
    void fail(Throwable failure);
}

package io.rdma.spring.template;

import io.rdma.verbs.api.PooledBuffer;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;

/**
 * A request of request/reply: a send with immediate data that carries its correlation id
 * ({@link RdmaWireFormat}), whose future completes with the reply, not with the send's
 * completion. It is among its channel's {@link PendingRequests} from before it is posted until it
 * is settled, however that happens: the reply, an error reply, a failed send, the channel going
 * down, its timeout, or its caller giving up.
 */
final class Request extends TemplateOperation {

    private final byte[] payload;
    private final PendingRequests pending;
    private final Duration timeout;
    /** When the request times out, on {@link System#nanoTime()}'s clock. */
    private final long deadline;
    /** Set once, by {@link PendingRequests#register}, before the request is posted. */
    private int correlationId;

    Request(byte[] payload, PendingRequests pending, Duration timeout) {
        this.payload = payload;
        this.pending = pending;
        this.timeout = timeout;
        this.deadline = System.nanoTime() + timeout.toNanos();
    }

    @Override
    public SendOpcode opcode() {
        return SendOpcode.SEND_WITH_IMM;
    }

    @Override
    public int payloadLength() {
        return payload.length;
    }

    int correlationId() {
        return correlationId;
    }

    void correlationId(int id) {
        correlationId = id;
    }

    Duration timeout() {
        return timeout;
    }

    long deadline() {
        return deadline;
    }

    @Override
    public int immediateData() {
        return RdmaWireFormat.immediateData(RdmaWireFormat.REQUEST, correlationId);
    }

    @Override
    public void prepare(PooledBuffer buffer, int offset, SendWorkRequest wr) {
        MemorySegment.copy(payload, 0, buffer.segment(), ValueLayout.JAVA_BYTE, offset, payload.length);
    }

    @Override
    public boolean awaitsReply() {
        return true;
    }

    /** When the request was made, on {@link System#nanoTime()}'s clock: kept as its deadline less its timeout. */
    long madeAt() {
        return deadline - timeout.toNanos();
    }

    /**
     * Spins only while its channel's replies come within the spin: on a channel whose listener
     * hands its requests to worker threads a reply takes longer, and a caller spinning for it
     * holds a core that the worker needs, on a small machine the one it would run on.
     */
    @Override
    long spinBeforeParkingNanos() {
        return pending.repliesComeWithin(SPIN_BEFORE_PARKING_NANOS) ? SPIN_BEFORE_PARKING_NANOS : 0;
    }

    @Override
    boolean gaveUp() {
        pending.forget(this);
        return true;
    }

    @Override
    public String name() {
        return "request";
    }
}

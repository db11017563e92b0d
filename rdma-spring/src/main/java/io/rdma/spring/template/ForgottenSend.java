package io.rdma.spring.template;

import io.rdma.verbs.api.PooledBuffer;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;

import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * A send of {@link RdmaOperations#sendAndForget}: a zero-copy send without a future. Its writer
 * fills the leased buffer when it is posted; once settled it goes back to its channel's
 * {@link ForgottenSends} and carries a later send, so that a send on a channel with room in its
 * send queue allocates nothing. Nobody holds it to give up on it: it is always posted, and its
 * failures go to the template's {@link ForgottenSendFailureHandler}.
 */
final class ForgottenSend implements Postable {

    private final ForgottenSends owner;
    /** The next idle send below this one in its owner's stack, while this one is idle there. */
    @Nullable ForgottenSend below;
    private SendOpcode opcode = SendOpcode.SEND;
    private int length;
    private @Nullable Consumer<MemorySegment> writer;
    private int immediateData;

    ForgottenSend(ForgottenSends owner) {
        this.owner = owner;
    }

    /** Takes on the send of {@code length} bytes that {@code writer} fills. */
    ForgottenSend carry(SendOpcode opcode, int length, Consumer<MemorySegment> writer, int immediateData) {
        this.opcode = opcode;
        this.length = length;
        this.writer = writer;
        this.immediateData = immediateData;
        return this;
    }

    /** Idle: keeps nothing of the send it carried (the writer may hold the application's objects). */
    void clear() {
        writer = null;
    }

    @Override
    public SendOpcode opcode() {
        return opcode;
    }

    @Override
    public int payloadLength() {
        return length;
    }

    @Override
    public int immediateData() {
        return immediateData;
    }

    @Override
    public void prepare(PooledBuffer buffer, int offset, SendWorkRequest wr) {
        Consumer<MemorySegment> filling = writer;
        if (filling == null) {
            throw new IllegalStateException("a forgotten send was posted after it was settled");
        }
        filling.accept(offset == 0 ? buffer.segment() : buffer.segment().asSlice(offset));
    }

    @Override
    public @Nullable Object outcome(PooledBuffer buffer) {
        return null;
    }

    @Override
    public boolean claim() {
        return true;
    }

    @Override
    public void unclaim() {
    }

    @Override
    public boolean withdrawn() {
        return false;
    }

    @Override
    public boolean awaitsReply() {
        return false;
    }

    @Override
    public void succeed(@Nullable Object value) {
        owner.recycle(this);
    }

    @Override
    public void fail(Throwable failure) {
        try {
            owner.failed(name(), failure);
        } finally {
            owner.recycle(this);
        }
    }
}

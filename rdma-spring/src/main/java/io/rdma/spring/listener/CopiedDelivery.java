package io.rdma.spring.listener;

import io.rdma.spring.template.ReplyOutcome;

import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * A message whose payload was copied out of its receive buffer, so the buffer goes back to the
 * receive queue as soon as the message's invocation starts.
 *
 * <p>Reused: once its invocation is over and the reply it sent, if any, has settled, its
 * container keeps it for the next message of the same buffer ({@link ReceiveContainer#recycle}),
 * so a {@code byte[]} listener's message costs its bytes and no wrapper, 40 of a request/reply
 * round trip's bytes otherwise. Nothing outside the listener package sees it: the error handler
 * and methods get {@link #message()}'s record or the bytes, never the delivery. Its holds count
 * what still uses it: the invocation, and a reply on its way.
 */
final class CopiedDelivery extends Delivery implements ReplyOutcome {

    private static final byte[] NO_BYTES = new byte[0];

    private final ReceiveContainer container;
    private final String queuePair;
    private final int bufferIndex;
    private final AtomicInteger holds = new AtomicInteger();
    // Written by the container under its lock before the delivery is handed on, which orders them
    // before the invocation's reads; cleared when the last hold is released.
    private byte[] bytes = NO_BYTES;
    private boolean hasImmediateData;
    private int immediateData;
    private int receivedIn;
    /** Whose reply is on its way, to report it to if it fails. */
    private @Nullable ListenerInvoker replying;

    CopiedDelivery(ReceiveContainer container, String queuePair, int bufferIndex) {
        this.container = container;
        this.queuePair = queuePair;
        this.bufferIndex = bufferIndex;
    }

    /** Carries the message received into its buffer in {@code receivedIn}; its invocation holds it from now on. */
    CopiedDelivery carry(byte[] bytes, boolean hasImmediateData, int immediateData, int receivedIn) {
        this.bytes = bytes;
        this.hasImmediateData = hasImmediateData;
        this.immediateData = immediateData;
        this.receivedIn = receivedIn;
        holds.set(1);
        return this;
    }

    int bufferIndex() {
        return bufferIndex;
    }

    @Override
    public String queuePair() {
        return queuePair;
    }

    @Override
    public boolean hasImmediateData() {
        return hasImmediateData;
    }

    @Override
    public int immediateData() {
        return immediateData;
    }

    @Override
    void start() {
        container.returned(bufferIndex, receivedIn);
    }

    /** The buffer went back when the invocation started; the invocation's hold goes now. */
    @Override
    void finish() {
        release();
    }

    @Override
    byte[] bytes() {
        return bytes;
    }

    /** The delivery itself: its reply holds it until it has settled, so a failure is reported with this message. */
    @Override
    ReplyOutcome replyOutcome(ListenerInvoker invoker) {
        replying = invoker;
        holds.incrementAndGet();
        return this;
    }

    @Override
    public void replySettled(@Nullable Throwable failure) {
        ListenerInvoker invoker = replying;
        if (failure != null && invoker != null) {
            invoker.replyFailed(this, failure);
        }
        release();
    }

    private void release() {
        if (holds.decrementAndGet() == 0) {
            bytes = NO_BYTES; // the spare must not keep the application's last message alive
            replying = null;
            container.recycle(this);
        }
    }
}

package io.rdma.spring.listener;

import io.rdma.spring.template.ReplyOutcome;

/**
 * A received message on its way to one invocation of its listener: what the invocation starts
 * and ends with gives its receive buffer back to its {@link ReceiveContainer}. Started and
 * finished on the invocation's thread.
 */
abstract class Delivery {

    /** The queue pair the message came in on, and a reply goes out on. */
    public abstract String queuePair();

    public abstract boolean hasImmediateData();

    public abstract int immediateData();

    /** The invocation starts, on its thread. */
    abstract void start();

    /** The invocation is over: the method returned, its reply (if any) was sent or failed, its error handler ran. */
    abstract void finish();

    /**
     * What {@code invoker}'s reply to this message tells how it ended, so that a reply that fails
     * reaches the invoker's error handler with this message.
     */
    abstract ReplyOutcome replyOutcome(ListenerInvoker invoker);

    /** The message's bytes, as {@code byte[]} methods take them: a copy where the buffer is lent. */
    abstract byte[] bytes();

    /**
     * The message as the error handler and {@link ReceivedMessage} methods take it, made when one
     * asks: a {@code byte[]} method's invocation allocates no record around its bytes.
     */
    final ReceivedMessage message() {
        return new ReceivedMessage(queuePair(), bytes(), hasImmediateData(), immediateData());
    }
}

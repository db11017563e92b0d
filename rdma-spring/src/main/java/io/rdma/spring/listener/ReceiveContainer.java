package io.rdma.spring.listener;

import io.rdma.spring.channel.ChannelReplies.ReplySink;
import io.rdma.spring.channel.RdmaChannel;
import io.rdma.spring.completion.CompletionRouter;
import io.rdma.spring.template.RdmaWireFormat;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.PooledBuffer;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.WorkCompletion;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Keeps one channel's receive queue filled and hands each received message on: a reply of
 * request/reply ({@link RdmaWireFormat}) to the template's reply sink, any other message to the
 * channel's listener; a message that neither takes is dropped and counted. Receives are posted
 * with the pool buffer's index (and the container's generation) as wr_id; a
 * completion delivers the message to the {@link ListenerInvoker}, either copied out
 * ({@link CopiedDelivery}: the buffer comes back, and this posts it again, when the message's
 * invocation starts) or in its buffer ({@link ReceivedBuffer}: the buffer is lent to the
 * invocation and comes back when it is released). A message that waits for an invocation
 * keeps its buffer out of the receive queue, so a listener that falls behind empties the queue
 * and the sender gets RNR NAKs instead of this side queueing without bound. Flushed receives
 * return their buffers. {@link ChannelReceivers} fills the queue each time the channel comes up,
 * and when it goes down it returns every buffer it still holds, posted or
 * waiting: a QP reset or destroyed does not complete its posted receives (on Soft-RoCE not even
 * with a flush), and without this the pool would lose a queue's worth of buffers per reconnect
 * or peer.
 */
final class ReceiveContainer {

    private static final Log logger = LogFactory.getLog(ReceiveContainer.class);

    private final RdmaChannel channel;
    private final String name;
    private final QueuePair qp;
    private final MemoryPool pool;
    private final int depth;
    private final LongAdder unhandled;
    /** Whether each message starts with the in-band header ({@link RdmaWireFormat}): the device has no immediate data. */
    private final boolean inBand;
    private volatile @Nullable ListenerInvoker listener;
    private volatile @Nullable ReplySink replies;
    private final ReceiveWorkRequest request = new ReceiveWorkRequest();
    /**
     * By pool buffer index: since the last start, posted to the QP and not completed yet, or
     * holding a message that waits for its invocation. Guarded by this.
     */
    private final boolean[] held;
    /**
     * By pool buffer index: delivered as a {@link ReceivedBuffer} and not released yet. A stop
     * leaves these to their invocations, which return them to the pool. Guarded by this.
     */
    private final boolean[] lent;
    /**
     * By pool buffer index: the copied delivery of that buffer's last message, done with and kept
     * for its next one (see {@link CopiedDelivery}); null while in use, or before the first.
     * Guarded by this.
     */
    private final @Nullable CopiedDelivery[] spares;
    /**
     * By pool buffer index: the segment the last {@link ReceivedBuffer} of that buffer had as its
     * payload, handed to the next one when its payload has the same length (messages of one size,
     * as most RDMA traffic, slice each buffer once). A view of the receive buffer, as any payload
     * is: sharing it changes nothing a released buffer's holder could see. Guarded by this.
     */
    private final @Nullable MemorySegment[] payloads;
    /**
     * The high half of every wr_id, advanced by {@link #stop()}: a completion of an earlier
     * generation (a flush arriving after its buffer was returned) is ignored. Guarded by this.
     */
    private int generation;
    /** Whether the queue is filled, since the last stop. Guarded by this. */
    private boolean started;
    /**
     * Whether a retained buffer of this queue pair was found leaked already: the first report says
     * what to fix; a leak in a message handler leaks every buffer, and repeating it would flood the log.
     */
    private final AtomicBoolean leakReported = new AtomicBoolean();

    /**
     * Receives into {@code pool}, the channel's, taking its share of it: the channel's pool may be
     * shared by {@link RdmaChannel#poolSharers()} channels at once. Messages that no one takes
     * are counted into {@code unhandled}. Routes the channel's receive completions to itself from
     * now on.
     */
    ReceiveContainer(RdmaChannel channel, MemoryPool pool, LongAdder unhandled, CompletionRouter router) {
        this.channel = channel;
        this.name = channel.name();
        this.qp = channel.queuePair();
        this.pool = pool;
        // Half the pool at most, so the template can still lease buffers for sends on the same pool.
        this.depth = Math.max(1, Math.min(qp.capabilities().maxRecvWr(),
                pool.capacity() / (2 * channel.poolSharers())));
        this.unhandled = unhandled;
        this.inBand = RdmaWireFormat.inBand(qp);
        this.held = new boolean[pool.capacity()];
        this.lent = new boolean[pool.capacity()];
        this.spares = new CopiedDelivery[pool.capacity()];
        this.payloads = new MemorySegment[pool.capacity()];
        router.routeReceives(qp, this::received);
    }

    RdmaChannel channel() {
        return channel;
    }

    /** The queue pair's name: the channel's. */
    String name() {
        return name;
    }

    /** The messages that are not replies go to {@code invoker} from now on. */
    void listener(ListenerInvoker invoker) {
        listener = invoker;
    }

    /** Replies go to {@code sink} from now on. */
    void replies(ReplySink sink) {
        replies = sink;
    }

    /** Fills the receive queue; the QP must be past RESET (connected, or at least INIT). */
    void start() {
        int generationStarted;
        synchronized (this) {
            if (started) {
                return; // a channel that came up while its container was being made is filled once
            }
            started = true;
            generationStarted = generation;
        }
        for (int i = 0; i < depth; i++) {
            PooledBuffer buffer = pool.lease();
            synchronized (this) {
                if (generation != generationStarted) {
                    buffer.close(); // stopped meanwhile
                    return;
                }
                post(buffer);
            }
        }
    }

    /**
     * Returns every buffer it holds to the pool, but those lent to invocations, which go back when
     * released; completions of what was posted before are ignored from now on.
     */
    synchronized void stop() {
        started = false;
        generation++;
        for (int index = 0; index < held.length; index++) {
            if (held[index] && !lent[index]) {
                pool.buffer(index).close();
            }
            held[index] = false;
        }
    }

    /** Posts {@code buffer} under this generation; a buffer that could not be posted goes back to the pool. */
    private void post(PooledBuffer buffer) {
        try {
            qp.postReceive(request.reset().wrId((long) generation << 32 | buffer.index())
                    .addSge(buffer, 0, buffer.capacity()));
            held[buffer.index()] = true;
        } catch (RuntimeException e) {
            held[buffer.index()] = false;
            buffer.close();
            throw e;
        }
    }

    private void received(WorkCompletion completion) {
        Delivery delivery;
        int index = (int) completion.wrId();
        int receivedIn = (int) (completion.wrId() >>> 32);
        ListenerInvoker invoker;
        int length;
        MemorySegment payload;
        boolean hasImmediateData;
        int immediateData;
        boolean framed = true;
        boolean reply;
        synchronized (this) {
            if (receivedIn != generation || !held[index]) {
                return; // posted before the last stop, which returned its buffer
            }
            PooledBuffer buffer = pool.buffer(index);
            if (!completion.isSuccess()) {
                held[index] = false;
                buffer.close();
                return;
            }
            // An RDMA write with immediate data consumes a receive but puts nothing in it: the data
            // went where the writer addressed it, and byte_len is the write's length, not the buffer's.
            boolean written = completion.opcode() == CompletionOpcode.RECV_RDMA_WITH_IMM;
            length = written ? 0 : (int) completion.byteLength();
            payload = buffer.segment();
            hasImmediateData = completion.hasImmediateData();
            immediateData = completion.immediateData();
            if (inBand) { // the word is the header (RdmaWireFormat); an iWARP device has no write with immediate data
                framed = length >= RdmaWireFormat.IN_BAND_HEADER;
                if (framed) {
                    immediateData = RdmaWireFormat.inBandWord(payload);
                    hasImmediateData = RdmaWireFormat.travelsInBand(immediateData);
                    length -= RdmaWireFormat.IN_BAND_HEADER;
                    payload = payload.asSlice(RdmaWireFormat.IN_BAND_HEADER);
                }
            }
            reply = !written && hasImmediateData && RdmaWireFormat.isReply(immediateData);
            invoker = listener;
            if (reply || invoker == null || !framed) {
                delivery = null;
            } else if (invoker.lendsBuffers()) {
                lent[index] = true;
                delivery = new ReceivedBuffer(this, payloadOf(index, payload, length), hasImmediateData, immediateData,
                        index, receivedIn);
            } else {
                byte[] bytes = new byte[length];
                MemorySegment.copy(payload, ValueLayout.JAVA_BYTE, 0, bytes, 0, length);
                CopiedDelivery copied = spares[index];
                spares[index] = null;
                delivery = (copied != null ? copied : new CopiedDelivery(this, name, index))
                        .carry(bytes, hasImmediateData, immediateData, receivedIn);
            }
        }
        if (delivery != null && invoker != null) { // set together, above
            invoker.deliver(delivery);
            return;
        }
        ReplySink sink = replies;
        if (reply && sink != null) {
            sink.replied(channel, immediateData, payload, length);
        } else {
            unhandled.increment();
            if (logger.isDebugEnabled()) {
                logger.debug("Channel '" + name + "' received a " + (reply ? "reply" : "message") + (framed
                        ? " that nothing takes" : " shorter than the in-band header of a channel without immediate"
                        + " data") + " (" + length + " bytes): dropped");
            }
        }
        returned(index, receivedIn);
    }

    /**
     * The first {@code length} bytes of {@code received}, buffer {@code index}'s payload: its last one
     * when that has the length (a buffer's payload always starts at the same place: the buffer, or
     * past the in-band header on every message of the channel).
     */
    private MemorySegment payloadOf(int index, MemorySegment received, int length) {
        MemorySegment last = payloads[index];
        if (last != null && last.byteSize() == length) {
            return last;
        }
        MemorySegment payload = received.asSlice(0, length);
        payloads[index] = payload;
        return payload;
    }

    /**
     * The message received into buffer {@code index} is done with it (copied out as its
     * invocation started, or released): the buffer goes back to the receive queue; or to the pool
     * when a stop since {@code receivedIn} left it to its invocation, or already returned it.
     */
    synchronized void returned(int index, int receivedIn) {
        boolean wasLent = lent[index];
        lent[index] = false;
        if (receivedIn != generation) {
            if (wasLent) {
                pool.buffer(index).close();
            }
            return;
        }
        try {
            post(pool.buffer(index));
        } catch (RuntimeException e) {
            logger.warn("Receive buffer " + index + " could not be posted again to queue pair '" + name + "', whose"
                    + " receive queue now holds one buffer fewer; the buffer went back to the pool", e);
        }
    }

    /** {@code delivery}'s invocation is over and its reply settled: it carries its buffer's next message. */
    synchronized void recycle(CopiedDelivery delivery) {
        spares[delivery.bufferIndex()] = delivery;
    }

    /** A method retained one of this queue pair's buffers: its listener revokes it if it stops first. */
    void retained(ReceivedBuffer.Retained buffer) {
        ListenerInvoker invoker = listener;
        if (invoker != null) { // a lent buffer was delivered to a listener, so there is one
            invoker.retained(buffer);
        }
    }

    /** Whether this is the first retained buffer of this queue pair found unreachable unreleased. */
    boolean firstLeak() {
        return leakReported.compareAndSet(false, true);
    }

    /** A retained buffer was returned. */
    void forget(ReceivedBuffer.Retained buffer) {
        ListenerInvoker invoker = listener;
        if (invoker != null) {
            invoker.released(buffer);
        }
    }
}

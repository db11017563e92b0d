package io.rdma.spring.template;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

import org.jspecify.annotations.Nullable;

/**
 * The requests of one channel that wait for their replies, by correlation id. Ids are taken in
 * turn from the 30 bits the wire format gives them, and a request sits in the slot its id's low
 * bits name: a reply finds its request without a map, a key object or an entry, and matches it
 * only while the slot holds the request with exactly that id, so a reply that comes after its
 * request was settled (timed out, given up) finds nothing, is dropped and counted as late.
 * At most {@link #SLOTS} requests of a channel wait at once. While requests come, its
 * {@link ReplyTimeouts} watch it, and fail those past their deadline.
 */
final class PendingRequests {

    /** How many requests of one channel may wait for replies at once. */
    static final int SLOTS = 4096;
    /** How long the timeouts stay watched after the last deadline, so a steady flow of requests never stops them. */
    private static final long LINGER = Duration.ofSeconds(1).toNanos();

    private final String channel;
    private final AtomicReferenceArray<@Nullable Request> slots = new AtomicReferenceArray<>(SLOTS);
    private final AtomicInteger nextId = new AtomicInteger();
    private final LongAdder lateReplies;
    /** Whether {@link ReplyTimeouts} watch this channel's requests. */
    private final AtomicBoolean watched = new AtomicBoolean();
    /** The deadline of a recent request: watched until {@link #LINGER} after it. */
    private volatile long recentDeadline;
    /**
     * How long this channel's replies take, a moving average over the recent ones (each moves it
     * an eighth of the way); written racily by the pollers that take the replies, as a lost
     * update only delays the average.
     */
    private volatile long typicalReplyNanos;

    PendingRequests(String channel, LongAdder lateReplies) {
        this.channel = channel;
        this.lateReplies = lateReplies;
    }

    /**
     * Gives {@code request} a correlation id and a slot; false when every slot holds a waiting
     * request.
     */
    boolean register(Request request) {
        for (int tries = 0; tries < SLOTS; tries++) {
            int id = nextId.getAndIncrement() & RdmaWireFormat.MAX_CORRELATION_ID;
            // set before the slot publishes the request, so that whoever finds it there reads its id
            request.correlationId(id);
            if (slots.compareAndSet(id & (SLOTS - 1), null, request)) {
                recentDeadline = request.deadline();
                if (!watched.get() && watched.compareAndSet(false, true)) {
                    ReplyTimeouts.watch(this);
                }
                return true;
            }
        }
        return false;
    }

    /**
     * The reply (or error reply) with immediate value {@code immediateData} arrived, its payload
     * the first {@code length} bytes of {@code payload}: completes its request, or counts it late.
     * On the poller thread that took it; the payload is copied before this returns.
     */
    void replied(int immediateData, MemorySegment payload, int length) {
        int id = RdmaWireFormat.correlationId(immediateData);
        int slot = id & (SLOTS - 1);
        Request request = slots.get(slot);
        if (request == null || request.correlationId() != id || !slots.compareAndSet(slot, request, null)) {
            lateReplies.increment();
            return;
        }
        long typical = typicalReplyNanos;
        typicalReplyNanos = typical + ((System.nanoTime() - request.madeAt() - typical) >> 3);
        byte[] bytes = new byte[length];
        MemorySegment.copy(payload, ValueLayout.JAVA_BYTE, 0, bytes, 0, length); // no slice made per reply
        if (RdmaWireFormat.kind(immediateData) == RdmaWireFormat.ERROR_REPLY) {
            String[] error = RdmaWireFormat.parseErrorPayload(bytes);
            request.fail(new RdmaRemoteException(channel, error[0], error[1]));
        } else {
            request.succeed(bytes);
        }
    }

    /** Whether this channel's replies have come within {@code nanos} of their requests, as a rule. */
    boolean repliesComeWithin(long nanos) {
        return typicalReplyNanos <= nanos;
    }

    /** {@code request} is settled otherwise than by its reply: its slot is free, its timeout will not fire. */
    void forget(Request request) {
        slots.compareAndSet(request.correlationId() & (SLOTS - 1), request, null);
    }

    /** Fails every waiting request with {@code failure}: their channel went down. */
    void failAll(Throwable failure) {
        for (int slot = 0; slot < SLOTS; slot++) {
            Request request = slots.getAndSet(slot, null);
            if (request != null) {
                request.fail(failure);
            }
        }
    }

    /**
     * On the timeouts' thread, at {@code now}: fails the requests past their deadline, and stops
     * being watched once none waits and none came for a while.
     */
    void expire(long now) {
        boolean anyWaiting = false;
        for (int slot = 0; slot < SLOTS; slot++) {
            Request request = slots.get(slot);
            if (request == null) {
                continue;
            }
            if (now - request.deadline() < 0) {
                anyWaiting = true;
            } else if (slots.compareAndSet(slot, request, null)) {
                request.fail(new RdmaReplyTimeoutException(channel, request.timeout(), request.correlationId()));
            }
        }
        if (anyWaiting || now - recentDeadline < LINGER) {
            return;
        }
        ReplyTimeouts.unwatch(this);
        watched.set(false);
        // A request registered before the flag fell saw it set and did not watch again: look once more.
        for (int slot = 0; slot < SLOTS; slot++) {
            if (slots.get(slot) != null) {
                if (watched.compareAndSet(false, true)) {
                    ReplyTimeouts.watch(this);
                }
                return;
            }
        }
    }
}

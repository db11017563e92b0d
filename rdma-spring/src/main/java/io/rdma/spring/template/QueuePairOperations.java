package io.rdma.spring.template;

import io.rdma.spring.channel.ChannelState;
import io.rdma.spring.channel.RdmaChannel;
import io.rdma.spring.resource.SendTimeout;
import io.rdma.verbs.api.CompletionStatus;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.PooledBuffer;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.WorkCompletion;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * The template's state for one channel's QP: a reused work request, the pool its buffers come from, the
 * operations in flight by the index of their buffer (their wr_id, tagged), and those waiting for
 * room in the send queue. Every operation
 * is signaled, so each one's completion finds it here (on the send CQ's poller thread), releases
 * its buffer and settles it: completes its future, or, for a send without one
 * ({@link ForgottenSend}), hands it back to the channel's {@link ForgottenSends} for a later send.
 *
 * <p>An operation that finds the send queue full, or every buffer of the pool leased (the pool may
 * be shared with receives and with messages listeners hold), waits in a queue of its own: no
 * thread is held for it, and it leases no buffer until it is posted. Waiting operations are posted, oldest
 * first, whenever room may have appeared: after each send completion of the QP (the poll that
 * took it freed its slot), before each new operation, and when the oldest one's send-timeout
 * passes; those that waited longer than that then fail with a {@link SendQueueFullException}. A
 * new operation never overtakes a waiting one, so operations are posted in the order they were
 * made; and as all wait the same send-timeout, the oldest always expires first, so one timer per
 * queue pair suffices. Operations are settled outside the lock, so that what a caller chains to a
 * future (or what a failure handler does) cannot hold up the queue pair's other operations. An
 * operation whose caller gave up while it waited is dropped, never posted
 * ({@link TemplateOperation#claim()}). Requests of request/reply wait for their replies among the
 * channel's {@link PendingRequests}.
 */
final class QueuePairOperations {

    /** Every operation completes into the send CQ: its completion settles it. */
    private static final Set<SendFlag> SIGNALED = EnumSet.of(SendFlag.SIGNALED);
    /** About 146 years: deadlines this far apart still compare correctly across System.nanoTime's wrap. */
    private static final long LONGEST_WAIT_NANOS = Long.MAX_VALUE / 2;
    /**
     * The high half of the template's wr_ids ("RDMA"), the low half a buffer index: a send
     * completion of a WR someone else posted on the QP with a small wr_id is not taken for one
     * of the template's.
     */
    private static final long WR_ID_TAG = 0x5244_4D41L << 32;

    /** An operation the send queue had no room for, and the {@link System#nanoTime} at which it gives up. */
    private record Waiting(Postable operation, long deadline) {
    }

    /** An operation that failed; it is settled once the lock is released. */
    private record Failed(Postable operation, Throwable failure) {
    }

    private final RdmaChannel channel;
    private final String name;
    private final QueuePair qp;
    private final MemoryPool pool;
    private final SendTimeout sendTimeout;
    private final PendingRequests pendingRequests;
    private final ForgottenSends forgottenSends;
    private final long sendTimeoutNanos;
    /**
     * Whether the channel's sends carry their immediate value in an in-band header
     * ({@link RdmaWireFormat}), as its device carries no immediate data (iWARP).
     */
    private final boolean inBand;
    private final SendWorkRequest request = new SendWorkRequest();
    /**
     * By the index of the pool buffer each leased: an index is in one operation at a time, so the
     * table needs no key objects or entries per operation.
     */
    private final AtomicReferenceArray<@Nullable Postable> inFlight;
    /** Guards the reused work request, posting, the waiting operations and {@link #expiryScheduled}. */
    private final ReentrantLock lock = new ReentrantLock();
    private final Deque<Waiting> waiting = new ArrayDeque<>();
    /**
     * Whether {@link #waiting} holds an operation: a send completion takes the lock to post
     * waiting operations only then. Written under the lock after each change of the line.
     */
    private volatile boolean anyWaiting;
    /** Operations failed under the lock, to be completed once it is released. Guarded by {@link #lock}. */
    private final List<Failed> failures = new ArrayList<>();
    /** Whether a timer will look at the oldest waiting operation's deadline. */
    private boolean expiryScheduled;

    /**
     * {@code pool} is the channel's; late replies to its requests are counted into {@code lateReplies},
     * and its forgotten sends' failures go to {@code forgottenSendFailures}.
     */
    QueuePairOperations(RdmaChannel channel, MemoryPool pool, LongAdder lateReplies,
                        ForgottenSendFailureHandler forgottenSendFailures) {
        this.channel = channel;
        this.name = channel.name();
        this.qp = channel.queuePair();
        this.pool = pool;
        this.sendTimeout = channel.sendTimeout();
        this.sendTimeoutNanos = Math.min(TimeUnit.NANOSECONDS.convert(sendTimeout.limit()), LONGEST_WAIT_NANOS);
        this.inFlight = new AtomicReferenceArray<>(pool.capacity());
        this.pendingRequests = new PendingRequests(name, lateReplies);
        this.forgottenSends = new ForgottenSends(name, forgottenSendFailures, qp.capabilities().maxSendWr());
        this.inBand = RdmaWireFormat.inBand(qp);
    }

    RdmaChannel channel() {
        return channel;
    }

    PendingRequests pendingRequests() {
        return pendingRequests;
    }

    /**
     * Posts {@code made}, or queues it until the send queue has room and the pool a free buffer,
     * and returns its future, which yields what the operation's completion makes of its buffer.
     */
    <T extends @Nullable Object> CompletableFuture<T> post(TemplateOperation made) {
        RuntimeException refused = refusal(made);
        if (refused != null) {
            // The operation fails itself, so that a request's place among those awaiting replies is free at once.
            if (made instanceof Request request) {
                pendingRequests.forget(request);
            }
            made.fail(refused);
            return made.future();
        }
        List<Failed> failed;
        lock.lock();
        try {
            failed = postOrWait(made);
        } finally {
            lock.unlock();
        }
        report(failed);
        return made.future();
    }

    /**
     * Posts a send of {@code length} bytes that {@code writer} fills, or queues it as {@link #post}
     * does, without a future: the {@link ForgottenSend} that carries it is an idle one of the
     * channel's. Throws what refuses it at once; later failures go to the channel's
     * {@link ForgottenSendFailureHandler}.
     */
    void sendAndForget(SendOpcode opcode, int length, Consumer<MemorySegment> writer, int immediateData) {
        RuntimeException refused;
        List<Failed> failed = List.of();
        lock.lock();
        try {
            ForgottenSend send = forgottenSends.take(opcode, length, writer, immediateData);
            refused = refusal(send);
            if (refused == null) {
                failed = postOrWait(send);
            } else {
                forgottenSends.recycle(send);
            }
        } finally {
            lock.unlock();
        }
        if (refused != null) {
            throw refused;
        }
        report(failed);
    }

    /**
     * Posts {@code made} unless operations wait before it or the send queue is full, and then
     * queues it; returns the failures to report once the lock is released. Under the lock.
     */
    private List<Failed> postOrWait(Postable made) {
        postWaiting();
        if (!waiting.isEmpty() || !postUnlessFull(made)) {
            waitForRoom(made);
            // Again, now that completions see it waiting: room freed before they could would go unseen.
            postWaiting();
        }
        return takeFailures();
    }

    /** The bytes in front of {@code operation}'s payload: the in-band header of a send on a channel without immediate data. */
    private int header(Postable operation) {
        return inBand && operation.opcode().isSend() ? RdmaWireFormat.IN_BAND_HEADER : 0;
    }

    /** Why {@code made} is refused before it waits, as no room in the send queue would ever let it go; null when it is not. */
    private @Nullable RuntimeException refusal(Postable made) {
        int largest = pool.bufferSize() - header(made);
        if (made.payloadLength() > largest) {
            return new PayloadTooLargeException(name, channel.declaration(), made.payloadLength(), largest);
        }
        if (inBand && made.opcode().carriesImmediateData()
                && (made.opcode() != SendOpcode.SEND_WITH_IMM || !RdmaWireFormat.travelsInBand(made.immediateData()))) {
            return new ImmediateDataUnsupportedException(name, made.name(), qp.context().deviceName());
        }
        return null;
    }

    /**
     * The QP is about to be destroyed: operations still in flight or waiting fail as flushed,
     * and those in flight return their buffers, since a destroyed QP need not complete them
     * (Soft-RoCE does not flush them).
     */
    void abandon() {
        List<Failed> failed = new ArrayList<>();
        lock.lock();
        try {
            for (Waiting abandoned = waiting.poll(); abandoned != null; abandoned = waiting.poll()) {
                failed.add(new Failed(abandoned.operation(), flushed(abandoned.operation())));
            }
            anyWaiting = false;
            failed.addAll(takeFailures());
        } finally {
            lock.unlock();
        }
        for (int index = 0; index < inFlight.length(); index++) {
            Postable operation = inFlight.getAndSet(index, null);
            if (operation != null) {
                pool.buffer(index).close();
                failed.add(new Failed(operation, flushed(operation)));
            }
        }
        report(failed);
    }

    private RdmaOperationException flushed(Postable operation) {
        return new RdmaOperationException(operation.name(), name, CompletionStatus.WR_FLUSH_ERR, 0);
    }

    /**
     * A send completion of the QP: settles its operation, if it is one of ours (a request only when
     * its send failed: else its reply settles it), and posts what now fits.
     */
    void completed(WorkCompletion completion) {
        long wrId = completion.wrId();
        int index = (int) wrId;
        Postable done = (wrId & ~0xFFFF_FFFFL) == WR_ID_TAG && index >= 0 && index < inFlight.length()
                ? inFlight.getAndSet(index, null) : null;
        Object value = null;
        RdmaOperationException failure = null;
        if (done != null) {
            PooledBuffer buffer = pool.buffer(index);
            try {
                if (completion.isSuccess()) {
                    value = done.outcome(buffer);
                } else {
                    failure = new RdmaOperationException(done.name(), name, completion.status(),
                            completion.vendorError());
                }
            } finally {
                buffer.close();
            }
        }
        // Whoever posted it, the poll that took this completion freed slots.
        if (anyWaiting) {
            List<Failed> failed;
            lock.lock();
            try {
                postWaiting();
                failed = takeFailures();
            } finally {
                lock.unlock();
            }
            report(failed);
        }
        if (done != null) {
            if (failure == null) {
                if (!done.awaitsReply()) {
                    done.succeed(value);
                }
            } else {
                if (done instanceof Request request) {
                    pendingRequests.forget(request);
                }
                done.fail(failure);
            }
        }
    }

    /** Posts the waiting operations, oldest first, while the send queue has room. Under the lock. */
    private void postWaiting() {
        for (Waiting oldest = waiting.peek(); oldest != null && postUnlessFull(oldest.operation());
             oldest = waiting.peek()) {
            waiting.poll();
        }
        anyWaiting = !waiting.isEmpty();
    }

    /**
     * Posts {@code operation}, or fails it (into {@link #failures}) when the post is refused; false
     * only when the send queue has no room or the pool no free buffer, and then nothing was leased or
     * posted. Under the lock.
     */
    private boolean postUnlessFull(Postable operation) {
        if (operation.withdrawn()) {
            return true; // its caller gave up while it waited, or a request's channel went down meanwhile
        }
        // A look before leasing and copying; tryPostSend decides, as other posters may take the room.
        if (qp.outstandingSends() >= qp.capabilities().maxSendWr()) {
            return false;
        }
        PooledBuffer buffer;
        try {
            buffer = pool.tryLease();
        } catch (RuntimeException e) {
            failures.add(new Failed(operation, e));
            return true;
        }
        if (buffer == null) {
            return false; // every buffer is leased: wait for one as for a slot, not fail at once
        }
        long wrId = WR_ID_TAG | buffer.index();
        inFlight.set(buffer.index(), operation);
        try {
            int header = header(operation);
            request.reset().wrId(wrId).opcode(header > 0 ? SendOpcode.SEND : operation.opcode()).flags(SIGNALED)
                    .addSge(buffer, 0, header + operation.payloadLength());
            operation.prepare(buffer, header, request);
            if (header > 0) { // a plain send's word is 0, as its immediateData() is
                RdmaWireFormat.writeInBandWord(buffer.segment(), operation.immediateData());
            } else if (operation.opcode().carriesImmediateData()) {
                request.immediateData(operation.immediateData());
            }
            if (!operation.claim()) {
                inFlight.set(buffer.index(), null);
                buffer.close();
                return true; // its caller gave up just now: it must not be posted
            }
            if (qp.tryPostSend(request)) {
                return true;
            }
            operation.unclaim();
            inFlight.set(buffer.index(), null);
            buffer.close();
            return false;
        } catch (RuntimeException e) {
            inFlight.set(buffer.index(), null);
            buffer.close();
            failures.add(new Failed(operation, channelDownOr(e)));
            return true;
        }
    }

    /**
     * What a refused post tells the caller: that the channel is down, when its queue pair is out of
     * RTS (its connection failed and is being made again: libibverbs refuses the post with EINVAL),
     * as a call on a channel seen down would; else the refusal itself.
     */
    private RuntimeException channelDownOr(RuntimeException refused) {
        QueuePairState state;
        try {
            state = qp.state();
        } catch (RuntimeException closed) {
            state = QueuePairState.RESET; // closed meanwhile: as down as it gets
        }
        if (state == QueuePairState.RTS) {
            return refused;
        }
        ChannelState seen = channel.state();
        RdmaChannelDownException down = new RdmaChannelDownException(name, seen == ChannelState.UP ? ChannelState.DOWN
                : seen, "its queue pair is in " + state + (channel.lastFailure() != null ? " (" + channel.lastFailure()
                + ")" : ""));
        down.initCause(refused);
        return down;
    }

    /** Queues {@code operation} until room appears or its send-timeout passes. Under the lock. */
    private void waitForRoom(Postable operation) {
        long deadline = System.nanoTime() + sendTimeoutNanos;
        waiting.add(new Waiting(operation, deadline));
        anyWaiting = true;
        if (!expiryScheduled) {
            scheduleExpiry(deadline);
        }
    }

    private void scheduleExpiry(long deadline) {
        expiryScheduled = true;
        CompletableFuture.delayedExecutor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
                .execute(this::expire);
    }

    /**
     * On a timer thread, at the oldest waiting operation's deadline: posts what fits now, fails
     * the operations whose send-timeout has passed, and sets the timer for the next deadline.
     */
    private void expire() {
        List<Failed> failed;
        lock.lock();
        try {
            expiryScheduled = false;
            postWaiting();
            long now = System.nanoTime();
            for (Waiting oldest = waiting.peek(); oldest != null; oldest = waiting.peek()) {
                if (oldest.deadline() - now > 0) {
                    scheduleExpiry(oldest.deadline());
                    break;
                }
                waiting.poll();
                failures.add(new Failed(oldest.operation(), new SendQueueFullException(oldest.operation().name(),
                        name, qp.outstandingSends(), qp.capabilities().maxSendWr(), pool.leasedCount(),
                        pool.capacity(), sendTimeout.limit(), sendTimeout.property())));
            }
            anyWaiting = !waiting.isEmpty();
            failed = takeFailures();
        } finally {
            lock.unlock();
        }
        report(failed);
    }

    /** The failures recorded under the lock, handed out to be reported once it is released. Under the lock. */
    private List<Failed> takeFailures() {
        if (failures.isEmpty()) {
            return List.of(); // the common case: no list to allocate
        }
        List<Failed> taken = List.copyOf(failures);
        failures.clear();
        return taken;
    }

    private void report(List<Failed> failed) {
        for (Failed settled : failed) {
            if (settled.operation() instanceof Request request) {
                pendingRequests.forget(request);
            }
            settled.operation().fail(settled.failure());
        }
    }
}

package io.rdma.verbs.api;

import io.rdma.verbs.spi.CqHandle;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code struct ibv_cq} (verbs manual §5): polled into a reusable {@link CompletionBatch}, or waited
 * on through its completion channel. Polling also retires send-queue entries of the QPs that
 * use this CQ, which is how {@link QueuePair#postSend} knows the send queue's real depth, and
 * wakes the threads waiting for room in {@link QueuePair#awaitSendRoom}; and it counts down the
 * receives of the QPs that receive here ({@link QueuePair#outstandingReceives()}).
 *
 * <p>Closing it first closes the QPs that use it as send or receive CQ (with their flows and
 * connections); {@code ibv_destroy_cq} itself requires that no QP uses the CQ (verbs manual §5.5).
 *
 * <p>Thread-safe: polls are serialized by the CQ, so it may be polled from many threads, but one
 * poller per CQ performs best (verbs manual §14); arming it may race a poll.
 */
public final class CompletionQueue extends VerbsResource {

    private final CqHandle handle;
    private final CompletionQueueOptions options;
    private final ReentrantLock pollLock = new ReentrantLock();
    /** QPs whose send completions land here. */
    private final QueuePairsByNumber sendQueueUsers = new QueuePairsByNumber();
    /** QPs (not on an SRQ) whose receive completions land here. */
    private final QueuePairsByNumber receiveQueueUsers = new QueuePairsByNumber();

    CompletionQueue(DeviceContext context, CompletionQueueOptions options, CqHandle handle) {
        super(ResourceKind.COMPLETION_QUEUE, context, handle, parentsOf(context, options));
        this.options = options;
        this.handle = handle;
    }

    private static List<VerbsResource> parentsOf(DeviceContext context, CompletionQueueOptions options) {
        List<VerbsResource> parents = new ArrayList<>(List.of(context));
        if (options.channel() != null) {
            parents.add(options.channel());
        }
        return parents;
    }

    /** Entries granted, at least those requested. */
    public int capacity() {
        return handle.capacity();
    }

    public CompletionQueueOptions options() {
        return options;
    }

    /**
     * {@code ibv_poll_cq} into {@code batch}: returns how many completions it now holds (0 when
     * none). Never blocks, never allocates. Thread-safe; one poller per CQ performs best (verbs manual §14).
     *
     * @throws VerbsException EOVERFLOW when the CQ overran (more completions arrived than it holds);
     *         EIO when the device reports a poll failure
     * @throws ResourceClosedException when the CQ is closed
     */
    public int poll(CompletionBatch batch) {
        pollLock.lock();
        try {
            ensureOpen();
            int count = handle.poll(batch.sink(), batch.capacity());
            batch.size(count);
            for (int i = 0; i < count; i++) {
                WorkCompletion completion = batch.get(i);
                boolean send = completion.opcode().isSendQueue();
                QueuePair qp = (send ? sendQueueUsers : receiveQueueUsers).find(completion.qpNumber());
                if (qp != null && send) {
                    qp.sendQueue().retire(completion);
                } else if (qp != null) {
                    qp.receiveCompleted();
                }
            }
            return count;
        } finally {
            pollLock.unlock();
        }
    }

    /**
     * {@code ibv_req_notify_cq}: the next (solicited) completion signals the channel.
     *
     * @throws VerbsException EINVAL when the CQ has no completion channel; the errno
     *         {@code ibv_req_notify_cq} fails with
     * @throws ResourceClosedException when the CQ is closed
     */
    public void requestNotify(boolean solicitedOnly) {
        ensureOpen();
        requireChannel("ibv_req_notify_cq");
        handle.requestNotify(solicitedOnly);
    }

    /**
     * Blocks until completions arrive or {@code timeout} passes, following verbs manual §5.4: poll,
     * arm, poll again (closing the race), then sleep on the channel. Returns the number of
     * completions in {@code batch}, 0 on timeout. Needs a CQ created with a channel that no
     * other CQ shares.
     *
     * @throws VerbsException EINVAL when the CQ has no completion channel; otherwise as
     *         {@link #poll}, {@link #requestNotify} and {@link CompletionChannel#awaitEvent}
     * @throws ResourceClosedException when the CQ or its channel is closed
     * @throws InterruptedException when the thread is interrupted while it waits
     */
    public int awaitCompletions(CompletionBatch batch, Duration timeout) throws InterruptedException {
        CompletionChannel channel = requireChannel("ibv_get_cq_event");
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            int count = poll(batch);
            if (count > 0) {
                return count;
            }
            requestNotify(false);
            count = poll(batch);
            if (count > 0) {
                return count;
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0 || channel.awaitEvent(Duration.ofNanos(remaining)).isEmpty()) {
                return poll(batch);
            }
        }
    }

    private CompletionChannel requireChannel(String verb) {
        CompletionChannel channel = options.channel();
        if (channel == null) {
            throw new VerbsException(verb, Errno.EINVAL, "this CQ was created without a completion channel",
                    "create it with CompletionQueueOptions.withChannel(context.createCompletionChannel())");
        }
        return channel;
    }

    QueuePairsByNumber sendQueueUsers() {
        return sendQueueUsers;
    }

    QueuePairsByNumber receiveQueueUsers() {
        return receiveQueueUsers;
    }

    CqHandle cqHandle() {
        return handle;
    }


    @Override
    void destroyHandle() {
        pollLock.lock();
        try {
            handle.destroy();
            markClosed();
        } finally {
            pollLock.unlock();
        }
    }

    @Override
    String describe() {
        return "completion queue of " + options.entries() + " entries on " + context().deviceName();
    }
}

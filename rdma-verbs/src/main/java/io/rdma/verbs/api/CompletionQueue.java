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
 */
public final class CompletionQueue extends VerbsResource {

    private final CqHandle handle;
    private final CompletionQueueOptions options;
    private final ReentrantLock pollLock = new ReentrantLock();
    /** QPs whose send completions land here; copy-on-write, read on every poll. */
    private volatile QueuePair[] sendQueueUsers = new QueuePair[0];
    /** QPs (not on an SRQ) whose receive completions land here; copy-on-write, read on every poll. */
    private volatile QueuePair[] receiveQueueUsers = new QueuePair[0];

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
     * none). Never blocks, never allocates. Thread-safe; one poller per CQ performs best (§14).
     */
    public int poll(CompletionBatch batch) {
        pollLock.lock();
        try {
            ensureOpen();
            int count = handle.poll(batch.sink(), batch.capacity());
            batch.size(count);
            QueuePair[] users = sendQueueUsers;
            for (int i = 0; i < count; i++) {
                WorkCompletion completion = batch.get(i);
                if (completion.opcode().isSendQueue()) {
                    retire(users, completion);
                } else {
                    receiveCompleted(receiveQueueUsers, completion);
                }
            }
            return count;
        } finally {
            pollLock.unlock();
        }
    }

    private static void retire(QueuePair[] users, WorkCompletion completion) {
        for (QueuePair qp : users) {
            if (qp.qpNumber() == completion.qpNumber()) {
                qp.sendQueue().retire(completion);
                return;
            }
        }
    }

    private static void receiveCompleted(QueuePair[] users, WorkCompletion completion) {
        for (QueuePair qp : users) {
            if (qp.qpNumber() == completion.qpNumber()) {
                qp.receiveCompleted();
                return;
            }
        }
    }

    /** {@code ibv_req_notify_cq}: the next (solicited) completion signals the channel. */
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

    void addSendQueueUser(QueuePair qp) {
        synchronized (this) {
            QueuePair[] users = java.util.Arrays.copyOf(sendQueueUsers, sendQueueUsers.length + 1);
            users[users.length - 1] = qp;
            sendQueueUsers = users;
        }
    }

    void removeSendQueueUser(QueuePair qp) {
        synchronized (this) {
            sendQueueUsers = java.util.Arrays.stream(sendQueueUsers).filter(user -> user != qp)
                    .toArray(QueuePair[]::new);
        }
    }

    void addReceiveQueueUser(QueuePair qp) {
        synchronized (this) {
            QueuePair[] users = java.util.Arrays.copyOf(receiveQueueUsers, receiveQueueUsers.length + 1);
            users[users.length - 1] = qp;
            receiveQueueUsers = users;
        }
    }

    void removeReceiveQueueUser(QueuePair qp) {
        synchronized (this) {
            receiveQueueUsers = java.util.Arrays.stream(receiveQueueUsers).filter(user -> user != qp)
                    .toArray(QueuePair[]::new);
        }
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

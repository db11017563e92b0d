package io.rdma.verbs.bench;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.CompletionBatch;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionQueueOptions;
import io.rdma.verbs.api.ConnectOptions;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendOpcode;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.WorkCompletion;

import java.time.Duration;
import java.util.EnumSet;

/**
 * One side of a perftest run, built as perftest builds it: an RC QP with its own send CQ
 * and receive CQ (each with its own completion channel when waiting on events), one
 * registered buffer, and a ring of receives kept posted. Two peers in one process stand for
 * perftest's server and client processes; each is driven by one thread only. The peers live
 * as long as their device context, which closes them.
 */
final class PerftestPeer {

    /** perftest's default inline size for RC sends ({@code DEF_INLINE_SEND_RC_UC}). */
    private static final int INLINE_LIMIT = 236;
    /** How long a wait on a completion event may take before the run is declared stuck. */
    private static final Duration STUCK = Duration.ofSeconds(30);

    private final boolean events;
    private final QueuePair qp;
    private final CompletionQueue sendCq;
    private final CompletionQueue receiveCq;
    private final MemoryRegion buffer;
    private final CompletionBatch sendCompletions;
    private final CompletionBatch receiveCompletions = new CompletionBatch(1);
    private final ReceiveWorkRequest[] receives;
    private final SendWorkRequest send = new SendWorkRequest();

    /**
     * @param sendDepth    send WRs that may be outstanding (perftest's {@code tx_depth})
     * @param receiveDepth receives kept posted (perftest's {@code rx_depth}); 0 for a passive RDMA target
     * @param bufferBytes  the registered buffer: the message size
     * @param events       wait for completions on a completion channel instead of busy polling
     */
    PerftestPeer(DeviceContext context, ProtectionDomain pd, int sendDepth, int receiveDepth, int bufferBytes,
                 boolean events) {
        this.events = events;
        sendCq = completionQueue(context, sendDepth);
        receiveCq = completionQueue(context, Math.max(1, receiveDepth));
        QueuePairCapabilities caps = QueuePairCapabilities.of(sendDepth, Math.max(1, receiveDepth))
                .withInlineData(Math.min(bufferBytes, INLINE_LIMIT));
        qp = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, sendCq, caps)
                .withCompletionQueues(sendCq, receiveCq));
        buffer = pd.allocateMemory(bufferBytes,
                EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ));
        sendCompletions = new CompletionBatch(Math.min(sendDepth, 16));
        receives = new ReceiveWorkRequest[receiveDepth];
        for (int i = 0; i < receiveDepth; i++) {
            receives[i] = new ReceiveWorkRequest().wrId(i).addSge(buffer, 0, bufferBytes);
        }
    }

    private CompletionQueue completionQueue(DeviceContext context, int entries) {
        CompletionQueueOptions options = CompletionQueueOptions.of(entries);
        return context.createCompletionQueue(events ? options.withChannel(context.createCompletionChannel())
                : options);
    }

    /** Connects to {@code peer} over {@code gidIndex} (RoCE needs the GID; rxe wants index 1). */
    void connect(PerftestPeer peer, int gidIndex) {
        ConnectOptions options = ConnectOptions.builder().gidIndex(gidIndex).build();
        qp.connect(peer.qp.localEndpoint(options), options);
    }

    /** Posts the whole receive ring; from RTR on (or INIT), before the peer starts sending. */
    void postReceives() {
        for (ReceiveWorkRequest receive : receives) {
            qp.postReceive(receive);
        }
    }

    /** A signaled SEND of the whole buffer, inline when it fits, as ib_send_lat posts it. */
    void prepareSend() {
        EnumSet<SendFlag> flags = EnumSet.of(SendFlag.SIGNALED);
        if (buffer.length() <= qp.capabilities().maxInlineData()) {
            flags.add(SendFlag.INLINE);
        }
        send.reset().opcode(SendOpcode.SEND).flags(flags).addSge(buffer, 0, (int) buffer.length());
    }

    /** A signaled RDMA WRITE of the whole buffer into {@code target}'s buffer, as ib_write_bw posts it. */
    void prepareWrite(PerftestPeer target) {
        send.reset().opcode(SendOpcode.RDMA_WRITE).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(buffer, 0, (int) buffer.length())
                .remote(target.buffer.remote());
    }

    /** Posts the prepared WR under {@code wrId}; no wait. */
    void post(long wrId) {
        qp.postSend(send.wrId(wrId));
    }

    /** Posts the prepared WR and waits for its completion (ib_send_lat's tx depth of 1). */
    void postAndComplete(long wrId) throws InterruptedException {
        post(wrId);
        if (await(sendCq, sendCompletions) != 1) {
            throw new IllegalStateException("one send was outstanding, more completed");
        }
    }

    /** Polls the send CQ once; fails on an error completion. */
    int pollSendCompletions() {
        return checked(sendCompletions, sendCq.poll(sendCompletions));
    }

    /** Waits for the next message, checks its length and posts its receive again. */
    void receiveAndRepost() throws InterruptedException {
        await(receiveCq, receiveCompletions);
        WorkCompletion message = receiveCompletions.get(0);
        if (message.byteLength() != buffer.length()) {
            throw new IllegalStateException("expected a " + buffer.length() + "-byte message: " + message);
        }
        qp.postReceive(receives[(int) message.wrId()]);
    }

    /**
     * Busy polls {@code cq} until something arrives (an interrupt stops it: the peer's thread
     * failed), or with events waits on its channel (poll, arm, poll, sleep:
     * {@link CompletionQueue#awaitCompletions}).
     */
    private int await(CompletionQueue cq, CompletionBatch batch) throws InterruptedException {
        int count;
        if (events) {
            count = cq.awaitCompletions(batch, STUCK);
            if (count == 0) {
                throw new IllegalStateException("no completion within " + STUCK + " on " + cq);
            }
        } else {
            while ((count = cq.poll(batch)) == 0) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("stopped while polling " + cq);
                }
            }
        }
        return checked(batch, count);
    }

    private static int checked(CompletionBatch batch, int count) {
        for (int i = 0; i < count; i++) {
            if (!batch.get(i).isSuccess()) {
                throw new IllegalStateException("completion failed: " + batch.get(i));
            }
        }
        return count;
    }
}

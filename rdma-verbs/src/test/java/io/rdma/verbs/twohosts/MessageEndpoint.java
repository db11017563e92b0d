package io.rdma.verbs.twohosts;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.CompletionBatch;
import io.rdma.verbs.api.CompletionChannel;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.CompletionQueueOptions;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.WorkCompletion;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.EnumSet;

/**
 * One end of a message exchange over an RC QP that the connection manager connects: a CQ
 * waited on through a completion channel (two guests with one vCPU each cannot afford busy
 * polling), a registered buffer split into a receive half and a send half, and one receive
 * kept posted. Messages are at most half the buffer.
 */
final class MessageEndpoint implements AutoCloseable {

    private final CompletionChannel channel;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final MemoryRegion buffer;
    private final int maxMessage;
    /** One completion per poll: each is told apart by its opcode. */
    private final CompletionBatch completions = new CompletionBatch(1);
    private final ReceiveWorkRequest receive;
    private final SendWorkRequest send = new SendWorkRequest();
    private long sent;
    private boolean sendCompleted;
    /** Length of the message received and not yet taken; -1 when none. */
    private long receivedLength = -1;

    MessageEndpoint(DeviceContext context, ProtectionDomain pd, int maxMessage) {
        this.maxMessage = maxMessage;
        channel = context.createCompletionChannel();
        cq = context.createCompletionQueue(CompletionQueueOptions.of(16).withChannel(channel));
        qp = pd.createQueuePair(QueuePairOptions.of(QueuePairType.RC, cq, QueuePairCapabilities.of(4, 4)));
        buffer = pd.allocateMemory(2L * maxMessage, EnumSet.of(AccessFlag.LOCAL_WRITE));
        receive = new ReceiveWorkRequest().wrId(0).addSge(buffer, 0, maxMessage);
    }

    /** The QP to hand to {@code accept} or {@code connect}: in RESET until then. */
    QueuePair queuePair() {
        return qp;
    }

    /** Posts the first receive; call once the connection is established (the QP is in RTS). */
    void start() {
        qp.postReceive(receive);
    }

    /** Sends {@code message} and waits until the peer acknowledged it. */
    void send(byte[] message, Duration timeout) throws InterruptedException {
        if (message.length > maxMessage) {
            throw new IllegalArgumentException(message.length + "-byte message, at most " + maxMessage);
        }
        MemorySegment.copy(MemorySegment.ofArray(message), 0, buffer.segment(), maxMessage, message.length);
        sendCompleted = false;
        qp.postSend(send.reset().wrId(++sent).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(buffer, maxMessage, message.length));
        while (!sendCompleted) {
            next(timeout, "the completion of send " + sent);
        }
    }

    /** Waits for the next message, copies it out and posts the receive again. */
    byte[] receive(Duration timeout) throws InterruptedException {
        while (receivedLength < 0) {
            next(timeout, "a message");
        }
        byte[] message = buffer.segment().asSlice(0, receivedLength).toArray(ValueLayout.JAVA_BYTE);
        receivedLength = -1;
        qp.postReceive(receive);
        return message;
    }

    /**
     * Takes the next completion, which must be a success: the send's, or a message's (which may
     * overtake the completion of the send it answers).
     */
    private void next(Duration timeout, String what) throws InterruptedException {
        if (cq.awaitCompletions(completions, timeout) == 0) {
            throw new IllegalStateException("waited " + timeout.toSeconds() + " s for " + what + " in vain");
        }
        WorkCompletion completion = completions.get(0);
        if (!completion.isSuccess()) {
            throw new IllegalStateException("waiting for " + what + ": " + completion);
        }
        if (completion.opcode().isSendQueue()) {
            if (completion.wrId() != sent) {
                throw new IllegalStateException("completion of send " + completion.wrId() + ", expected " + sent);
            }
            sendCompleted = true;
        } else {
            receivedLength = completion.byteLength();
        }
    }

    /** Closes the QP (and its connection, if any), then the buffer, the CQ and its channel. */
    @Override
    public void close() {
        qp.close();
        buffer.close();
        cq.close();
        channel.close();
    }
}

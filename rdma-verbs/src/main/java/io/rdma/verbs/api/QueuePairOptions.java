package io.rdma.verbs.api;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_qp_init_attr}: everything fixed when a QP is created. The CQs and the
 * optional SRQ are the QP's parents: they stay open at least as long as the QP.
 *
 * @param signalAll {@code sq_sig_all}: every send WR produces a completion when true
 *
 * <p>Immutable, so thread-safe; the resources it names are thread-safe themselves.
 */
public record QueuePairOptions(QueuePairType type, CompletionQueue sendCq, CompletionQueue recvCq,
                               @Nullable SharedReceiveQueue srq, QueuePairCapabilities capabilities, boolean signalAll) {

    public static QueuePairOptions of(QueuePairType type, CompletionQueue cq, QueuePairCapabilities capabilities) {
        return new QueuePairOptions(type, cq, cq, null, capabilities, false);
    }

    public QueuePairOptions withSrq(SharedReceiveQueue value) {
        return new QueuePairOptions(type, sendCq, recvCq, value, capabilities, signalAll);
    }

    public QueuePairOptions withCompletionQueues(CompletionQueue send, CompletionQueue recv) {
        return new QueuePairOptions(type, send, recv, srq, capabilities, signalAll);
    }

    public QueuePairOptions withCapabilities(QueuePairCapabilities value) {
        return new QueuePairOptions(type, sendCq, recvCq, srq, value, signalAll);
    }

    public QueuePairOptions withSignalAll(boolean value) {
        return new QueuePairOptions(type, sendCq, recvCq, srq, capabilities, value);
    }
}

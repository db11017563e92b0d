package io.rdma.verbs.api;

/**
 * {@code struct ibv_qp_cap}: requested sizes on create, granted sizes afterwards.
 *
 * <p>Immutable, so thread-safe.
 */
public record QueuePairCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {

    public static QueuePairCapabilities of(int maxSendWr, int maxRecvWr) {
        return new QueuePairCapabilities(maxSendWr, maxRecvWr, 1, 1, 0);
    }

    public QueuePairCapabilities withSge(int maxSendSge, int maxRecvSge) {
        return new QueuePairCapabilities(maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData);
    }

    public QueuePairCapabilities withInlineData(int bytes) {
        return new QueuePairCapabilities(maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, bytes);
    }
}

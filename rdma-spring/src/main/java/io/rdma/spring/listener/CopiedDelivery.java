package io.rdma.spring.listener;

/**
 * A message whose payload was copied out of its receive buffer, so the buffer goes back to the
 * receive queue as soon as the message's invocation starts.
 */
final class CopiedDelivery extends Delivery {

    private final String queuePair;
    private final byte[] bytes;
    private final boolean hasImmediateData;
    private final int immediateData;
    private final ReceiveContainer container;
    private final int bufferIndex;
    private final int receivedIn;

    CopiedDelivery(String queuePair, byte[] bytes, boolean hasImmediateData, int immediateData,
                   ReceiveContainer container, int bufferIndex, int receivedIn) {
        this.queuePair = queuePair;
        this.bytes = bytes;
        this.hasImmediateData = hasImmediateData;
        this.immediateData = immediateData;
        this.container = container;
        this.bufferIndex = bufferIndex;
        this.receivedIn = receivedIn;
    }

    @Override
    public String queuePair() {
        return queuePair;
    }

    @Override
    public boolean hasImmediateData() {
        return hasImmediateData;
    }

    @Override
    public int immediateData() {
        return immediateData;
    }

    @Override
    void start() {
        container.returned(bufferIndex, receivedIn);
    }

    @Override
    void finish() {
        // the buffer went back when the invocation started
    }

    @Override
    byte[] bytes() {
        return bytes;
    }
}

package io.rdma.spring.listener;

/**
 * A message whose payload was copied out of its receive buffer, so the buffer goes back to the
 * receive queue as soon as the message's invocation starts.
 */
final class CopiedDelivery extends Delivery {

    private final ReceivedMessage message;
    private final ReceiveContainer container;
    private final int bufferIndex;
    private final int receivedIn;

    CopiedDelivery(ReceivedMessage message, ReceiveContainer container, int bufferIndex, int receivedIn) {
        this.message = message;
        this.container = container;
        this.bufferIndex = bufferIndex;
        this.receivedIn = receivedIn;
    }

    @Override
    public String queuePair() {
        return message.queuePair();
    }

    @Override
    public boolean hasImmediateData() {
        return message.hasImmediateData();
    }

    @Override
    public int immediateData() {
        return message.immediateData();
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
    ReceivedMessage message() {
        return message;
    }
}

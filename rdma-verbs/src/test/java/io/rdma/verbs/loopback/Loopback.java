package io.rdma.verbs.loopback;

import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.ConnectOptions;
import io.rdma.verbs.api.QueuePair;

/**
 * Two QPs of one device context, on the same port, that talk to each other: the requester
 * posts sends, writes, reads and atomics; the responder receives. Each has its own CQ, so
 * every completion says by where it lands whose it is.
 */
public record Loopback(LoopbackFabric fabric, QueuePair requester, QueuePair responder) {

    public Loopback connect(ConnectOptions options) {
        fabric.connect(requester, responder, options);
        return this;
    }

    public CompletionQueue requesterCq() {
        return requester.sendCompletionQueue();
    }

    public CompletionQueue responderCq() {
        return responder.receiveCompletionQueue();
    }

    @Override
    public String toString() {
        return "loopback " + requester + " -> " + responder;
    }
}

package io.rdma.sample;

import io.rdma.spring.listener.RdmaListener;
import io.rdma.spring.listener.ReceivedMessage;
import io.rdma.spring.template.RdmaTemplate;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.stereotype.Component;

/**
 * Calls the echo server over the {@code echo-client} queue pair. Each request carries a
 * correlation id as immediate data; the server's reply carries it back, and the reply handler
 * completes the request's future.
 */
@Component
class EchoClient {

    private static final String QUEUE_PAIR = "echo-client";

    private final RdmaTemplate rdma;
    private final AtomicInteger nextCorrelation = new AtomicInteger();
    private final Map<Integer, CompletableFuture<String>> pending = new ConcurrentHashMap<>();

    EchoClient(RdmaTemplate rdma) {
        this.rdma = rdma;
    }

    CompletableFuture<String> echo(String message) {
        int correlation = nextCorrelation.incrementAndGet();
        CompletableFuture<String> reply = new CompletableFuture<>();
        pending.put(correlation, reply);
        rdma.send(QUEUE_PAIR, message.getBytes(StandardCharsets.UTF_8), correlation).whenComplete((sent, failure) -> {
            if (failure != null) {
                pending.remove(correlation);
                reply.completeExceptionally(failure);
            }
        });
        return reply;
    }

    @RdmaListener(queuePair = QUEUE_PAIR)
    void reply(ReceivedMessage message) {
        CompletableFuture<String> reply = pending.remove(message.immediateData());
        if (reply != null) {
            reply.complete(new String(message.payload(), StandardCharsets.UTF_8));
        }
    }
}

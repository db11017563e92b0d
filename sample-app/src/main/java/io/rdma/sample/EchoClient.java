package io.rdma.sample;

import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.connection.ServiceGroup;
import io.rdma.spring.listener.RdmaListener;
import io.rdma.spring.listener.ReceivedMessage;
import io.rdma.spring.template.RdmaTemplate;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Calls the echo server of the one instance of the service that connection {@code echo-client}
 * is connected to (Spring Cloud LoadBalancer chose it; another is chosen when it leaves). Each
 * request carries a correlation id as immediate data; the server's reply carries it back, and the
 * reply handler completes the request's future, unless {@code sample.echo.timeout} (5 s) failed
 * it first.
 */
@Component
class EchoClient {

    private static final String CONNECTION = "echo-client";

    private final RdmaTemplate rdma;
    private final ServiceGroup instances;
    private final AtomicInteger nextCorrelation = new AtomicInteger();
    private final PendingReplies<String> replies;

    EchoClient(RdmaTemplate rdma, RdmaConnections connections, @Value("${sample.echo.timeout:5s}") Duration timeout) {
        this.rdma = rdma;
        this.instances = connections.group(CONNECTION);
        this.replies = new PendingReplies<>(timeout);
    }

    /**
     * The echo of {@code message}, or a {@link java.util.concurrent.TimeoutException} after {@code sample.echo.timeout}.
     *
     * @throws io.rdma.spring.connection.NoServiceInstanceException when no instance is connected
     */
    CompletableFuture<String> echo(String message) {
        String instance = instances.any();
        int correlation = nextCorrelation.incrementAndGet();
        return replies.call(correlation,
                () -> rdma.send(instance, message.getBytes(StandardCharsets.UTF_8), correlation));
    }

    @RdmaListener(serviceConnection = CONNECTION)
    void reply(ReceivedMessage message) {
        replies.complete(message.immediateData(), new String(message.payload(), StandardCharsets.UTF_8));
    }

    /** Requests whose reply is still awaited. */
    int awaitingReplies() {
        return replies.size();
    }
}

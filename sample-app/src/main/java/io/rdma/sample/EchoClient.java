package io.rdma.sample;

import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.connection.ServiceGroup;
import io.rdma.spring.template.RdmaOperations;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.springframework.stereotype.Component;

/**
 * Calls the echo server of the one instance of the service that connection {@code echo-client}
 * is connected to (Spring Cloud LoadBalancer chose it; another is chosen when it leaves): a
 * typed request/reply of the starter (a String each way), which correlates the reply and fails the
 * call after {@code sample.echo.timeout} (5 s).
 */
@Component
class EchoClient {

    private static final String CONNECTION = "echo-client";

    private final RdmaOperations rdma;
    private final ServiceGroup instances;
    private final Duration timeout;

    EchoClient(RdmaOperations rdma, RdmaConnections connections, SampleProperties properties) {
        this.rdma = rdma;
        this.instances = connections.group(CONNECTION);
        this.timeout = properties.echo().timeout();
    }

    /**
     * The echo of {@code message}, or a {@link java.util.concurrent.TimeoutException} after {@code sample.echo.timeout}.
     *
     * @throws io.rdma.spring.connection.NoServiceInstanceException when no instance is connected
     */
    CompletableFuture<String> echo(String message) {
        return rdma.convertSendAndReceive(instances.any(), message, String.class, timeout);
    }
}

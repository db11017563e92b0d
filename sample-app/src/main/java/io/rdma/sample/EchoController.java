package io.rdma.sample;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /echo?message=hi}: the message's round trip through the RDMA echo server. */
@RestController
class EchoController {

    private final EchoClient client;
    private final Duration timeout;

    /** {@code echo.timeout}: how long a call waits for its reply (5 s). */
    EchoController(EchoClient client, @Value("${echo.timeout:5s}") Duration timeout) {
        this.client = client;
        this.timeout = timeout;
    }

    @GetMapping("/echo")
    CompletableFuture<String> echo(@RequestParam String message) {
        return client.echo(message).orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
}

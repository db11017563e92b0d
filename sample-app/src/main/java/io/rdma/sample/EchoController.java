package io.rdma.sample;

import java.util.concurrent.CompletableFuture;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /echo?message=hi}: the message's round trip through the RDMA echo server. */
@RestController
class EchoController {

    private final EchoClient client;

    EchoController(EchoClient client) {
        this.client = client;
    }

    @GetMapping("/echo")
    CompletableFuture<String> echo(@RequestParam String message) {
        return client.echo(message);
    }
}

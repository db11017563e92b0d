package io.rdma.sample;

import io.rdma.boot.autoconfigure.listener.RdmaListener;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

import org.springframework.stereotype.Component;

/** Answers each request received on the {@code echo-server} queue pair; the starter sends the returned bytes back. */
@Component
class EchoServer {

    @RdmaListener(queuePair = "echo-server")
    byte[] echo(byte[] request) {
        String text = new String(request, StandardCharsets.UTF_8);
        return ("echo: " + text.toUpperCase(Locale.ROOT)).getBytes(StandardCharsets.UTF_8);
    }
}

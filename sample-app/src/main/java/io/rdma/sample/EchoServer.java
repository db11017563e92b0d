package io.rdma.sample;

import io.rdma.spring.listener.RdmaListener;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

import org.springframework.stereotype.Component;

/**
 * Answers each request of every client the {@code echo} listener accepted; the starter sends
 * the returned bytes back on that client's own queue pair.
 */
@Component
class EchoServer {

    @RdmaListener(connectionListener = "echo")
    byte[] echo(byte[] request) {
        String text = new String(request, StandardCharsets.UTF_8);
        return ("echo: " + text.toUpperCase(Locale.ROOT)).getBytes(StandardCharsets.UTF_8);
    }
}

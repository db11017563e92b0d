package io.rdma.sample;

import io.rdma.spring.listener.RdmaListener;

import java.util.Locale;

import org.springframework.stereotype.Component;

/**
 * Answers each request of every client the {@code echo} listener accepted; the starter converts
 * the request to a String (UTF-8) and sends the returned one back, as the reply, on that client's
 * own channel.
 */
@Component
class EchoServer {

    @RdmaListener(id = "echo-server", connectionListener = "echo")
    String echo(String request) {
        return "echo: " + request.toUpperCase(Locale.ROOT);
    }
}

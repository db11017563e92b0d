package io.rdma.sample.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

/**
 * The sample's {@code /kv/{key}} and {@code /echo} endpoints over a map in memory, whose
 * operations are atomic: a store whose every history is linearizable.
 */
final class InMemoryKvService implements HttpHandler {

    private final Map<String, String> store = new ConcurrentHashMap<>();

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            if (path.equals("/echo")) {
                String message = exchange.getRequestURI().getQuery().substring("message=".length());
                answer(exchange, 200, "echo: " + message.toUpperCase(Locale.ROOT));
                return;
            }
            String key = path.substring("/kv/".length());
            switch (exchange.getRequestMethod()) {
                case "PUT" -> {
                    store.put(key, new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                    answer(exchange, 204, null);
                }
                case "GET" -> {
                    String value = store.get(key);
                    answer(exchange, value != null ? 200 : 404, value);
                }
                case "DELETE" -> answer(exchange, store.remove(key) != null ? 204 : 404, null);
                default -> answer(exchange, 405, null);
            }
        }
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        if (body == null) {
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }
}

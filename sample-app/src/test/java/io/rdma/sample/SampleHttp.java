package io.rdma.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** The sample's HTTP API as the tests call it: requests to one instance, bodies as strings. */
final class SampleHttp {

    private final HttpClient http = HttpClient.newHttpClient();
    private final int port;

    SampleHttp(int port) {
        this.port = port;
    }

    /** {@code PUT /kv/{key}} with {@code value} as a text body. */
    HttpResponse<String> put(String key, String value) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri("/kv/" + key)).header("Content-Type", "text/plain")
                .PUT(HttpRequest.BodyPublishers.ofString(value)));
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)));
    }

    HttpResponse<String> delete(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)).DELETE());
    }

    HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }
}

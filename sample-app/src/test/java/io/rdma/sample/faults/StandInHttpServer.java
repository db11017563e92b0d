package io.rdma.sample.faults;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A stand-in for the sample's HTTP endpoints on a loopback port of its own, for tests of the
 * tools that drive them; registered with {@code @RegisterExtension}, it stops after each test.
 */
final class StandInHttpServer implements AfterEachCallback {

    private @Nullable HttpServer server;

    /** Serves every request with {@code handler}, each on a virtual thread. */
    void serve(HttpHandler handler) throws IOException {
        HttpServer started = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        started.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        started.createContext("/", handler);
        started.start();
        server = started;
    }

    /** The {@code --base-url} of the recorder's options that reaches it. */
    String baseUrlOption() {
        if (server == null) {
            throw new IllegalStateException("serve(handler) first");
        }
        return "--base-url=http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (server != null) {
            server.stop(0);
            server = null;
        }
    }
}

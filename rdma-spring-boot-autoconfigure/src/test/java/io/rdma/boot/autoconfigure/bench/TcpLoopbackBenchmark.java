package io.rdma.boot.autoconfigure.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The baseline {@link RequestReplyBenchmark} is held against: one 64-byte round trip over a TCP
 * loopback connection in the same JVM, NIO {@link SocketChannel}s in non-blocking mode with
 * {@code TCP_NODELAY}, both ends spinning: the benchmark thread writes the request and spins on
 * {@code read} until the whole answer is there, an echo thread spins on {@code read} until the
 * whole request is there and writes it back. What a service without RDMA gets at best on this
 * machine; sampled as {@link RequestReplyBenchmark} is.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class TcpLoopbackBenchmark {

    static final int MESSAGE = 64;

    private final ByteBuffer request = ByteBuffer.allocateDirect(MESSAGE);
    private final ByteBuffer reply = ByteBuffer.allocateDirect(MESSAGE);
    private SocketChannel client;
    private SocketChannel server;
    private Thread echo;

    @Setup(Level.Trial)
    public void connect() throws IOException {
        try (ServerSocketChannel listening = ServerSocketChannel.open()) {
            listening.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            client = SocketChannel.open(listening.getLocalAddress());
            server = listening.accept();
        }
        for (SocketChannel end : new SocketChannel[] {client, server}) {
            end.setOption(StandardSocketOptions.TCP_NODELAY, true);
            end.configureBlocking(false);
        }
        echo = Thread.ofPlatform().name("echo").start(this::echo);
    }

    @Benchmark
    public ByteBuffer roundTrip() throws IOException {
        request.clear();
        while (request.hasRemaining()) {
            client.write(request);
        }
        reply.clear();
        while (reply.hasRemaining()) {
            if (client.read(reply) < 0) {
                throw new IOException("the echo end closed the connection");
            }
        }
        return reply;
    }

    /** Answers every message, spinning on the non-blocking channel, until it is closed. */
    private void echo() {
        ByteBuffer message = ByteBuffer.allocateDirect(MESSAGE);
        try {
            while (true) {
                message.clear();
                while (message.hasRemaining()) {
                    if (server.read(message) < 0) {
                        return;
                    }
                }
                message.flip();
                while (message.hasRemaining()) {
                    server.write(message);
                }
            }
        } catch (IOException e) {
            if (server.isOpen()) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @TearDown(Level.Trial)
    public void close() throws IOException, InterruptedException {
        client.close();
        echo.join();
        server.close();
    }
}

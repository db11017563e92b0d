package io.rdma.verbs.bench;

import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.ProtectionDomain;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * ib_send_lat's ping-pong: a server and a client peer, each on its own thread as perftest's two
 * processes are. The server waits for a message, reposts its receive, sends one back and
 * waits for that send's completion; the client records the time, sends, waits for the send's
 * completion, then for the answer. Busy polling, or completion events as {@code ib_send_lat -e}.
 */
final class SendLatency {

    /** The figures of one run, and the heap bytes each thread allocated per round trip. */
    record Result(LatencyFigures figures, double clientBytesPerRoundTrip, double serverBytesPerRoundTrip) {
    }

    private final PerftestPeer server;
    private final PerftestPeer client;

    /** Two connected peers with {@code receiveDepth} receives posted each; {@code messageBytes} per message. */
    SendLatency(DeviceContext context, ProtectionDomain pd, int messageBytes, int receiveDepth, boolean events,
                int gidIndex) {
        server = new PerftestPeer(context, pd, 1, receiveDepth, messageBytes, events);
        client = new PerftestPeer(context, pd, 1, receiveDepth, messageBytes, events);
        server.connect(client, gidIndex);
        client.connect(server, gidIndex);
        server.prepareSend();
        client.prepareSend();
        server.postReceives();
        client.postReceives();
    }

    /** {@code iterations} round trips; run it once untimed first to warm up the JIT. */
    Result run(int iterations) throws InterruptedException {
        long[] posted = new long[iterations];
        double[] bytesPerRoundTrip = new double[2];
        Callable<Void> serverSide = () -> {
            AllocationMeter meter = new AllocationMeter();
            meter.start();
            for (int i = 0; i < iterations; i++) {
                server.receiveAndRepost();
                server.postAndComplete(i);
            }
            bytesPerRoundTrip[1] = (double) meter.bytes() / iterations;
            return null;
        };
        Callable<Void> clientSide = () -> {
            AllocationMeter meter = new AllocationMeter();
            meter.start();
            for (int i = 0; i < iterations; i++) {
                posted[i] = System.nanoTime();
                client.postAndComplete(i);
                client.receiveAndRepost();
            }
            bytesPerRoundTrip[0] = (double) meter.bytes() / iterations;
            return null;
        };
        runTogether(serverSide, clientSide);
        return new Result(LatencyFigures.fromPostTimes(posted), bytesPerRoundTrip[0], bytesPerRoundTrip[1]);
    }

    /** Runs both sides on their own threads; when one fails the other is interrupted and the failure thrown. */
    private static void runTogether(Callable<Void> first, Callable<Void> second) throws InterruptedException {
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            ExecutorCompletionService<Void> sides = new ExecutorCompletionService<>(threads);
            Future<Void> a = sides.submit(first);
            Future<Void> b = sides.submit(second);
            for (int finished = 0; finished < 2; finished++) {
                try {
                    sides.take().get();
                } catch (ExecutionException e) {
                    a.cancel(true);
                    b.cancel(true);
                    throw new IllegalStateException("a side of the ping-pong failed", e.getCause());
                }
            }
        }
    }
}

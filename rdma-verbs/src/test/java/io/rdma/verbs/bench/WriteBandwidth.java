package io.rdma.verbs.bench;

import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.ProtectionDomain;

import java.util.Locale;

/**
 * ib_write_bw's loop: one writer keeps up to {@code txDepth} signaled RDMA WRITEs of the whole
 * buffer outstanding towards a passive target, posting one WR per call and polling the send
 * CQ once per turn; every post and every completion is timed, as perftest does with cycles.
 */
final class WriteBandwidth {

    private static final long STUCK_NANOS = 30_000_000_000L;
    private static final double MEBIBYTE = 1 << 20;

    /**
     * perftest's report: average and peak bandwidth in MB/s (MB = 2^20 bytes), message rate in
     * Mpps, and the heap bytes the writer's thread allocated per write.
     */
    record Result(int bytes, int iterations, double peakMBps, double averageMBps, double mpps,
                  double bytesPerWrite) {

        String keyValues(String prefix) {
            return String.format(Locale.ROOT, """
                    %1$s_bytes=%2$d
                    %1$s_iters=%3$d
                    %1$s_MBps_peak=%4$.2f
                    %1$s_MBps=%5$.2f
                    %1$s_Mpps=%6$.6f
                    %1$s_alloc_bytes_per_op=%7$.3f""", prefix, bytes, iterations, peakMBps, averageMBps, mpps,
                    bytesPerWrite);
        }
    }

    private final PerftestPeer writer;
    private final int txDepth;
    private final int bytes;

    WriteBandwidth(DeviceContext context, ProtectionDomain pd, int bytes, int txDepth, int gidIndex) {
        this.bytes = bytes;
        this.txDepth = txDepth;
        writer = new PerftestPeer(context, pd, txDepth, 0, bytes, false);
        PerftestPeer target = new PerftestPeer(context, pd, 1, 0, bytes, false);
        writer.connect(target, gidIndex);
        target.connect(writer, gidIndex);
        writer.prepareWrite(target);
    }

    /** {@code writes} writes through the same code as {@link #run}, for the JIT; nothing is reported. */
    void warmUp(int writes) {
        transfer(writes, new long[writes], new long[writes]);
    }

    /** {@code iterations} writes, timed; {@link #warmUp} first. */
    Result run(int iterations) {
        long[] posted = new long[iterations];
        long[] completed = new long[iterations];
        AllocationMeter meter = new AllocationMeter();
        meter.start();
        transfer(iterations, posted, completed);
        double bytesPerWrite = (double) meter.bytes() / iterations;
        return figures(iterations, posted, completed, bytesPerWrite);
    }

    private void transfer(int iterations, long[] posted, long[] completed) {
        int sent = 0;
        int done = 0;
        long progress = System.nanoTime();
        while (done < iterations) {
            while (sent < iterations && sent - done < txDepth) {
                posted[sent] = System.nanoTime();
                writer.post(sent);
                sent++;
            }
            int polled = writer.pollSendCompletions();
            long now = System.nanoTime();
            if (polled > 0) {
                for (int i = 0; i < polled; i++) {
                    completed[done++] = now;
                }
                progress = now;
            } else if (now - progress > STUCK_NANOS) {
                throw new IllegalStateException("no write completed within 30 s; " + done + " of " + iterations
                        + " done");
            }
        }
    }

    /** perftest's {@code print_report_bw} with {@code post_list} and {@code cq_mod} 1. */
    private Result figures(int iterations, long[] posted, long[] completed, double bytesPerWrite) {
        double bestNanosPerWrite = completed[0] - posted[0];
        for (int i = 0; i < iterations; i++) {
            for (int j = i; j < iterations; j++) {
                bestNanosPerWrite = Math.min(bestNanosPerWrite, (double) (completed[j] - posted[i]) / (j - i + 1));
            }
        }
        double seconds = (completed[iterations - 1] - posted[0]) / 1e9;
        return new Result(bytes, iterations, bytes / (bestNanosPerWrite / 1e9) / MEBIBYTE,
                (double) bytes * iterations / seconds / MEBIBYTE, iterations / seconds / 1e6, bytesPerWrite);
    }
}

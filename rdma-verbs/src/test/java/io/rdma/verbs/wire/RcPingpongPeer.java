package io.rdma.verbs.wire;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.AddressVector;
import io.rdma.verbs.api.CompletionBatch;
import io.rdma.verbs.api.CompletionOpcode;
import io.rdma.verbs.api.CompletionQueue;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.GlobalRoute;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.MemoryRegion;
import io.rdma.verbs.api.PortAttributes;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.QueuePairAttributes;
import io.rdma.verbs.api.QueuePairCapabilities;
import io.rdma.verbs.api.QueuePairEndpoint;
import io.rdma.verbs.api.QueuePairOptions;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;
import io.rdma.verbs.api.ReceiveWorkRequest;
import io.rdma.verbs.api.SendFlag;
import io.rdma.verbs.api.SendWorkRequest;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.api.WorkCompletion;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * A peer of rdma-core's {@code ibv_rc_pingpong} written against the public verbs API only
 * ({@code io.rdma.verbs.api}), speaking its protocol as {@code libibverbs/examples/rc_pingpong.c}
 * (v44) does: the TCP exchange of addresses ({@link PingpongAddressExchange}), an RC QP set up
 * with the C program's attributes, and the ping-pong itself: the client sends first, and each
 * side sends its next {@code size}-byte message only once its previous send and a receive have
 * both completed, until each has sent and received {@code -n} messages. It prints the C
 * program's lines ({@code local address}, {@code remote address}, {@code bytes in ... seconds},
 * {@code iters in ... seconds}), then an {@code OK} line.
 *
 * <p>It checks more than the C program: every completion SUCCESS with the opcode its queue
 * implies, exactly {@code -n} sends and {@code -n} receives, every received message exactly
 * {@code size} bytes and, in full, {@code ibv_rc_pingpong -c}'s pattern
 * ({@link ValidateBufferPattern}). Each receive has its own slot, refilled with
 * {@link #UNWRITTEN} before it is posted again, so a message that did not land in full cannot
 * pass on an earlier one's bytes. Any failure: a {@code FAILED} line, exit status 1; a bad
 * command line: exit status 2.
 *
 * <p>Run by {@code softroce/rc-pingpong-interop.sh} against {@code ibv_rc_pingpong} in both
 * roles; options: {@link RcPingpongOptions#USAGE}.
 */
public final class RcPingpongPeer {

    /** Receives carry their slot index as wr_id; the one send in flight carries this. */
    private static final long SEND_WR_ID = -1;
    /** rc_pingpong.c's {@code PINGPONG_RECV_WRID}/{@code PINGPONG_SEND_WRID} bits of {@code ctx->pending}. */
    private static final int PENDING_RECEIVE = 1;
    private static final int PENDING_SEND = 2;
    /** Differs from both bytes of the pattern, so every byte a message failed to write is caught. */
    private static final byte UNWRITTEN = (byte) 0xa5;
    /** {@code lrand48() & 0xffffff}: a PSN is 24 bits. */
    private static final int PSN_MASK = 0xffffff;

    private final RcPingpongOptions options;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final MemoryRegion sendBuffer;
    private final MemoryRegion receiveSlots;
    private final SendWorkRequest send;
    private final ReceiveWorkRequest receive = new ReceiveWorkRequest();
    private int sends;
    private int receives;

    private RcPingpongPeer(RcPingpongOptions options, DeviceContext context) {
        this.options = options;
        ProtectionDomain pd = context.allocateProtectionDomain();
        sendBuffer = pd.allocateMemory(options.size(), EnumSet.of(AccessFlag.LOCAL_WRITE));
        receiveSlots = pd.allocateMemory((long) options.size() * options.rxDepth(), EnumSet.of(AccessFlag.LOCAL_WRITE));
        // pp_init_ctx: one CQ of rx_depth + 1 entries for both queues, one send WR, rx_depth receives
        cq = context.createCompletionQueue(options.rxDepth() + 1);
        qp = pd.createQueuePair(
                QueuePairOptions.of(QueuePairType.RC, cq, QueuePairCapabilities.of(1, options.rxDepth())));
        qp.modify(QueuePairAttributes.builder().state(QueuePairState.INIT).pkeyIndex(0).port(options.ibPort())
                .accessFlags(Set.of()).build());
        ValidateBufferPattern.fill(sendBuffer.segment());
        send = new SendWorkRequest().wrId(SEND_WR_ID).flags(EnumSet.of(SendFlag.SIGNALED))
                .addSge(sendBuffer, 0, options.size());
    }

    public static void main(String[] args) {
        RcPingpongOptions options;
        try {
            options = RcPingpongOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("RcPingpongPeer: " + e.getMessage());
            System.err.println(RcPingpongOptions.USAGE);
            System.exit(2);
            return;
        }
        try (Verbs verbs = Verbs.open(ProviderKind.NATIVE);
             DeviceContext context = (options.device() == null ? verbs.devices().getFirst()
                     : verbs.device(options.device())).open()) {
            new RcPingpongPeer(options, context).run(context);
        } catch (Exception failure) {
            failure.printStackTrace();
            System.out.println("RcPingpongPeer: FAILED: " + failure);
            System.exit(1);
        }
    }

    private void run(DeviceContext context) throws IOException {
        for (int slot = 0; slot < options.rxDepth(); slot++) {
            postReceive(slot);
        }
        QueuePairEndpoint local = localEndpoint(context);
        printAddress("local address: ", local);
        QueuePairEndpoint remote = options.isClient()
                ? PingpongAddressExchange.asClient(options.serverHost(), options.tcpPort(), local)
                : PingpongAddressExchange.asServer(options.tcpPort(), local,
                        client -> connect(client, local.packetSequenceNumber()));
        printAddress("remote address:", remote);
        if (options.isClient()) {
            connect(remote, local.packetSequenceNumber());
        }
        report(pingpong());
    }

    /** What main() of rc_pingpong.c announces: port LID, QPN, a random PSN and the GID at {@code -g} (zero without). */
    private QueuePairEndpoint localEndpoint(DeviceContext context) {
        PortAttributes port = context.queryPort(options.ibPort());
        if (port.linkLayer() != LinkLayer.ETHERNET && port.lid() == 0) {
            throw new IllegalStateException("port " + options.ibPort() + " of " + context.deviceName()
                    + " has no LID (is a subnet manager running?)");
        }
        Gid gid = options.gidIndex() >= 0 ? context.queryGid(options.ibPort(), options.gidIndex()) : Gid.ZERO;
        return new QueuePairEndpoint(qp.qpNumber(), port.lid(), gid, new SecureRandom().nextInt() & PSN_MASK);
    }

    /**
     * {@code pp_connect_ctx}: INIT → RTR → RTS with the C program's attributes; the path has
     * service level 0 and, towards a GID, hop limit 1.
     */
    private void connect(QueuePairEndpoint remote, int sendPsn) {
        GlobalRoute route = hasInterfaceId(remote.gid()) ? new GlobalRoute(remote.gid(), options.gidIndex(), 0, 1, 0)
                : null;
        qp.modify(QueuePairAttributes.builder().state(QueuePairState.RTR).pathMtu(options.mtu())
                .destQpNumber(remote.qpNumber()).receivePsn(remote.packetSequenceNumber()).maxDestRdAtomic(1)
                .minRnrTimer(12).addressVector(new AddressVector(remote.lid(), 0, 0, options.ibPort(), route)).build());
        qp.modify(QueuePairAttributes.builder().state(QueuePairState.RTS).timeout(14).retryCount(7).rnrRetry(7)
                .sendPsn(sendPsn).maxRdAtomic(1).build());
    }

    /**
     * rc_pingpong.c gives the path a GRH only when {@code dest->gid.global.interface_id}, the
     * GID's low 8 bytes, is set.
     */
    private static boolean hasInterfaceId(Gid gid) {
        for (int i = 8; i < Gid.LENGTH; i++) {
            if (gid.byteAt(i) != 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * The ping-pong loop of rc_pingpong.c's main(), busy polling as it does without {@code -e};
     * returns its duration in nanoseconds, timed from where the C program starts its clock.
     */
    private long pingpong() {
        int pending = PENDING_RECEIVE;
        if (options.isClient()) {
            qp.postSend(send);
            pending |= PENDING_SEND;
        }
        long started = System.nanoTime();
        CompletionBatch batch = new CompletionBatch(2);
        while (receives < options.iterations() || sends < options.iterations()) {
            int count = cq.poll(batch);
            if (count == 0) {
                Thread.onSpinWait();
            }
            for (int i = 0; i < count; i++) {
                WorkCompletion completion = batch.get(i);
                if (completion.wrId() == SEND_WR_ID) {
                    checkCompletion(completion, CompletionOpcode.SEND, "send " + (sends + 1));
                    sends++;
                    pending &= ~PENDING_SEND;
                } else {
                    receives++;
                    checkReceived(completion);
                    pending &= ~PENDING_RECEIVE;
                }
                if (sends < options.iterations() && pending == 0) {
                    qp.postSend(send);
                    pending = PENDING_RECEIVE | PENDING_SEND;
                }
            }
        }
        return System.nanoTime() - started;
    }

    private void checkReceived(WorkCompletion completion) {
        String message = "message " + receives + " of " + options.iterations();
        checkCompletion(completion, CompletionOpcode.RECV, "the receive of " + message);
        if (receives > options.iterations()) {
            throw new IllegalStateException(message + " arrived: the peer sent more than -n " + options.iterations());
        }
        if (completion.byteLength() != options.size()) {
            throw new IllegalStateException(message + " is " + completion.byteLength() + " bytes, not -s "
                    + options.size());
        }
        int slot = Math.toIntExact(completion.wrId());
        MemorySegment received = slot(slot);
        long mismatch = ValidateBufferPattern.firstMismatch(received);
        if (mismatch >= 0) {
            throw new IllegalStateException(String.format(Locale.ROOT, "%s has 0x%02x at offset %d where "
                            + "ibv_rc_pingpong -c's pattern has 0x%02x", message,
                    received.get(ValueLayout.JAVA_BYTE, mismatch),
                    ValidateBufferPattern.expectedAt(mismatch), mismatch));
        }
        postReceive(slot);
    }

    private static void checkCompletion(WorkCompletion completion, CompletionOpcode expected, String what) {
        if (!completion.isSuccess()) {
            throw new IllegalStateException(what + " completed with " + completion.status() + " (vendor error 0x"
                    + Integer.toHexString(completion.vendorError()) + ")");
        }
        if (completion.opcode() != expected) {
            throw new IllegalStateException(what + " completed as " + completion.opcode() + ", not " + expected);
        }
    }

    private void postReceive(int slot) {
        slot(slot).fill(UNWRITTEN);
        qp.postReceive(receive.reset().wrId(slot).addSge(receiveSlots, (long) slot * options.size(), options.size()));
    }

    private MemorySegment slot(int slot) {
        return receiveSlots.segment().asSlice((long) slot * options.size(), options.size());
    }

    private static void printAddress(String label, QueuePairEndpoint endpoint) {
        System.out.printf(Locale.ROOT, "  %s LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%n", label, endpoint.lid(),
                endpoint.qpNumber(), endpoint.packetSequenceNumber(), endpoint.gid());
    }

    /** rc_pingpong.c's two result lines, in its format and arithmetic, then what this peer checked. */
    private void report(long elapsedNanos) {
        double usec = elapsedNanos / 1e3;
        long bytes = (long) options.size() * options.iterations() * 2;
        System.out.printf(Locale.ROOT, "%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, usec / 1e6,
                bytes * 8.0 / usec);
        System.out.printf(Locale.ROOT, "%d iters in %.2f seconds = %.2f usec/iter%n", options.iterations(),
                usec / 1e6, usec / options.iterations());
        System.out.printf(Locale.ROOT, "RcPingpongPeer: OK: %d sends and %d receives, every completion SUCCESS, "
                + "every message %d bytes of ibv_rc_pingpong -c's pattern%n", sends, receives,
                options.size());
    }
}

package io.rdma.verbs.wire;

import io.rdma.verbs.api.QueuePairEndpoint;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.function.Consumer;

/**
 * {@code ibv_rc_pingpong}'s exchange of QP addresses over TCP, in its order ({@code rc_pingpong.c}
 * v44, {@code pp_client_exch_dest} and {@code pp_server_exch_dest}): the client connects and
 * writes its {@link PingpongAddressMessage}; the server reads it, moves its QP to RTR and RTS
 * towards it, and only then answers with its own, so the client's first send cannot find the
 * server's QP short of RTR; the client reads that and writes {@code "done"} with its NUL, which
 * the server waits for before both close.
 *
 * <p>Each message goes out in one {@code write}: the C side takes it with a single
 * {@code read} and gives up when that returns less.
 */
final class PingpongAddressExchange {

    /** {@code sizeof "done"}: the client's last word, NUL included. */
    private static final byte[] DONE = "done\0".getBytes(StandardCharsets.US_ASCII);

    private PingpongAddressExchange() {
    }

    /**
     * The client's side: connects to {@code host:port} once (the C client does not retry either)
     * and returns the server's address.
     */
    static QueuePairEndpoint asClient(String host, int port, QueuePairEndpoint local) throws IOException {
        try (Socket socket = new Socket(host, port)) {
            OutputStream out = socket.getOutputStream();
            out.write(PingpongAddressMessage.encode(local));
            byte[] answer = readExactly(socket.getInputStream(), PingpongAddressMessage.LENGTH, "the server's address");
            out.write(DONE);
            return PingpongAddressMessage.decode(answer);
        }
    }

    /**
     * The server's side: listens on {@code port} (all addresses, {@code SO_REUSEADDR}, backlog 1),
     * accepts one client, reads its address, hands it to {@code connectQueuePair}, answers with
     * {@code local} and waits for the client's {@code "done"}.
     */
    static QueuePairEndpoint asServer(int port, QueuePairEndpoint local, Consumer<QueuePairEndpoint> connectQueuePair)
            throws IOException {
        Socket socket;
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(port), 1);
            socket = listener.accept();
        }
        try (socket) {
            InputStream in = socket.getInputStream();
            QueuePairEndpoint remote = PingpongAddressMessage.decode(
                    readExactly(in, PingpongAddressMessage.LENGTH, "the client's address"));
            connectQueuePair.accept(remote);
            socket.getOutputStream().write(PingpongAddressMessage.encode(local));
            byte[] done = readExactly(in, DONE.length, "the client's \"done\"");
            if (!Arrays.equals(done, DONE)) {
                throw new IOException("the client ended the exchange with " + HexFormat.ofDelimiter(" ").formatHex(done)
                        + " instead of \"done\" and its NUL");
            }
            return remote;
        }
    }

    private static byte[] readExactly(InputStream in, int length, String what) throws IOException {
        byte[] bytes = in.readNBytes(length);
        if (bytes.length != length) {
            throw new IOException("the peer closed the connection after " + bytes.length + " of the " + length
                    + " bytes of " + what);
        }
        return bytes;
    }
}

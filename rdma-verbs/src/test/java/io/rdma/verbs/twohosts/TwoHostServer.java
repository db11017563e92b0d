package io.rdma.verbs.twohosts;

import io.rdma.verbs.api.Connection;
import io.rdma.verbs.api.ConnectionListener;
import io.rdma.verbs.api.ConnectionManager;
import io.rdma.verbs.api.ProtectionDomain;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The server of the two-host demo (guest A of {@code softroce/two-hosts.sh}): listens through
 * rdma_cm, accepts one client, answers {@code TWO_HOSTS_ROUNDS} requests after checking each,
 * then waits for the client to disconnect. Settings: {@link TwoHostRun}.
 */
public final class TwoHostServer {

    static final byte[] GREETING = "rdma-verbs two-host server".getBytes(StandardCharsets.US_ASCII);

    private TwoHostServer() {
    }

    public static void main(String[] args) {
        TwoHostRun run = TwoHostRun.fromEnvironment("server");
        run.runAndExit(context -> {
            ProtectionDomain pd = context.allocateProtectionDomain();
            InetSocketAddress address = run.serverIp() == null ? new InetSocketAddress(run.port())
                    : new InetSocketAddress(run.serverIp(), run.port());
            try (MessageEndpoint endpoint = new MessageEndpoint(context, pd, RequestResponse.MAX_MESSAGE);
                 ConnectionListener listener = ConnectionManager.of(context).listen(address, 1)) {
                run.say("listening on " + listener.localAddress() + " (" + context.deviceName() + ")");
                Connection connection = listener.accept(endpoint.queuePair(), GREETING, run.patience())
                        .orElseThrow(() -> new IllegalStateException("no client within " + run.patience()));
                CompletableFuture<Connection> peerGone = new CompletableFuture<>();
                connection.onPeerDisconnect(peerGone::complete);
                endpoint.start();
                run.say("accepted " + connection.remoteAddress() + ", private data '"
                        + new String(connection.peerPrivateData(), StandardCharsets.US_ASCII).trim() + "'");
                for (int round = 0; round < run.rounds(); round++) {
                    byte[] request = endpoint.receive(TwoHostRun.MESSAGE_TIMEOUT);
                    RequestResponse.checkRequest(request, round);
                    endpoint.send(RequestResponse.response(request), TwoHostRun.MESSAGE_TIMEOUT);
                }
                run.say("answered " + run.rounds() + " requests; waiting for the client to disconnect");
                try {
                    peerGone.get(TwoHostRun.MESSAGE_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    throw new IllegalStateException("the client did not disconnect within "
                            + TwoHostRun.MESSAGE_TIMEOUT.toSeconds() + " s", e);
                }
                run.say("client disconnected");
            }
        });
    }
}

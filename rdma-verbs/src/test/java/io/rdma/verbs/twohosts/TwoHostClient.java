package io.rdma.verbs.twohosts;

import io.rdma.verbs.api.Connection;
import io.rdma.verbs.api.ConnectionManager;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.ProtectionDomain;
import io.rdma.verbs.api.VerbsException;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The client of the two-host demo (guest B of {@code softroce/two-hosts.sh}): connects to
 * {@code SERVER_IP} through rdma_cm, retrying while the server is not listening yet, sends
 * {@code TWO_HOSTS_ROUNDS} requests and checks every response, then disconnects. Settings:
 * {@link TwoHostRun}.
 */
public final class TwoHostClient {

    static final byte[] GREETING = "rdma-verbs two-host client".getBytes(StandardCharsets.US_ASCII);
    /** What a connect attempt meets before the server listens, or while its guest still boots. */
    private static final Set<Errno> NOT_YET = EnumSet.of(Errno.ECONNREFUSED, Errno.ETIMEDOUT, Errno.EHOSTUNREACH,
            Errno.ENETUNREACH, Errno.ENETDOWN);

    private TwoHostClient() {
    }

    public static void main(String[] args) {
        TwoHostRun run = TwoHostRun.fromEnvironment("client");
        if (run.serverIp() == null) {
            throw new IllegalArgumentException("SERVER_IP is not set: the address of the server's RDMA port");
        }
        run.runAndExit(context -> {
            ProtectionDomain pd = context.allocateProtectionDomain();
            InetSocketAddress server = new InetSocketAddress(run.serverIp(), run.port());
            long deadline = System.nanoTime() + run.patience().toNanos();
            for (int attempt = 1; ; attempt++) {
                MessageEndpoint endpoint = new MessageEndpoint(context, pd, RequestResponse.MAX_MESSAGE);
                try {
                    Connection connection = ConnectionManager.of(context).connect(server, endpoint.queuePair(),
                            GREETING, TwoHostRun.MESSAGE_TIMEOUT);
                    run.say("connected to " + connection.remoteAddress() + " at attempt " + attempt
                            + ", private data '"
                            + new String(connection.peerPrivateData(), StandardCharsets.US_ASCII).trim() + "'");
                    exchange(run, endpoint);
                    endpoint.close();
                    return;
                } catch (VerbsException e) {
                    endpoint.close();
                    if (!NOT_YET.contains(e.errno()) || System.nanoTime() > deadline) {
                        throw e;
                    }
                    run.say("attempt " + attempt + ": " + e.verb() + " " + e.errno() + "; retrying in 1 s");
                    Thread.sleep(1000);
                }
            }
        });
    }

    private static void exchange(TwoHostRun run, MessageEndpoint endpoint) throws InterruptedException {
        endpoint.start();
        long started = System.nanoTime();
        long bytes = 0;
        for (int round = 0; round < run.rounds(); round++) {
            byte[] request = RequestResponse.request(round);
            endpoint.send(request, TwoHostRun.MESSAGE_TIMEOUT);
            byte[] response = endpoint.receive(TwoHostRun.MESSAGE_TIMEOUT);
            RequestResponse.checkResponse(response, round);
            bytes += request.length + response.length;
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        run.say(String.format(Locale.ROOT, "%d request/response round trips checked, %d bytes, %.2f s, %.2f ms "
                + "per round trip", run.rounds(), bytes, seconds, seconds * 1e3 / run.rounds()));
    }
}

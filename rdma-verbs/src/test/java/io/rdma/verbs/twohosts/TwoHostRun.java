package io.rdma.verbs.twohosts;

import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.Verbs;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * What the server and the client of the two-host demo share: their settings, read from the
 * environment {@code softroce/two-hosts.sh} gives each guest, and the frame of a run: open
 * the native provider's device, run, close everything, check that nothing is left, and exit 0
 * only when all of that succeeded.
 *
 * <p>Environment: {@code SERVER_IP} (required by the client; the server listens on it, or
 * on every address when unset), {@code TWO_HOSTS_RDMA_PORT} (7471), {@code TWO_HOSTS_ROUNDS}
 * (100), {@code RDMA_DEVICE} (rxe0), {@code TWO_HOSTS_WAIT_SECONDS} (how long the server
 * waits for the client and the client retries connecting, 300).
 */
record TwoHostRun(String role, String serverIp, int port, int rounds, String device, Duration patience) {

    /** How long one message may take; generous, as both guests run under software emulation. */
    static final Duration MESSAGE_TIMEOUT = Duration.ofSeconds(30);

    @FunctionalInterface
    interface Body {
        void run(DeviceContext context) throws Exception;
    }

    static TwoHostRun fromEnvironment(String role) {
        Map<String, String> env = System.getenv();
        return new TwoHostRun(role, env.get("SERVER_IP"), integer(env, "TWO_HOSTS_RDMA_PORT", 7471),
                integer(env, "TWO_HOSTS_ROUNDS", 100), env.getOrDefault("RDMA_DEVICE", "rxe0"),
                Duration.ofSeconds(integer(env, "TWO_HOSTS_WAIT_SECONDS", 300)));
    }

    /** Runs {@code body} on the device, then exits: 0 on success, 1 on any failure or leftover object. */
    void runAndExit(Body body) {
        long started = System.nanoTime();
        int status = 0;
        try {
            Verbs verbs = Verbs.open(ProviderKind.NATIVE);
            try (DeviceContext context = verbs.device(device).open()) {
                body.run(context);
            } finally {
                verbs.close();
            }
            long live = verbs.liveObjects().values().stream().mapToLong(Long::longValue).sum();
            if (live != 0) {
                throw new IllegalStateException("objects left after close: " + verbs.liveObjects());
            }
        } catch (Throwable failure) {
            System.out.println(role + ": FAILED: " + failure);
            failure.printStackTrace(System.out);
            status = 1;
        }
        say(String.format(Locale.ROOT, "%s after %.1f s in the JVM", status == 0 ? "OK" : "FAILED",
                (System.nanoTime() - started) / 1e9));
        System.exit(status);
    }

    void say(String line) {
        System.out.println(role + ": " + line);
    }

    private static int integer(Map<String, String> env, String name, int defaultValue) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            return defaultValue;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer, not '" + value + "'", e);
        }
    }
}

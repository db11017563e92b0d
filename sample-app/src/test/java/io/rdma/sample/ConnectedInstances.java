package io.rdma.sample;

import io.rdma.spring.connection.RdmaConnections;

import java.time.Duration;

import static org.awaitility.Awaitility.await;

/**
 * Waits, as a client of the sample must, until its connections to the service are up: they are
 * made in the background once the application has started (and the discovery client lists the
 * instances), and a call before that is answered 503.
 */
final class ConnectedInstances {

    /** How long to wait for connections: {@code sample-test.cluster-wait-seconds}, 60 s unless given (the guest gives more). */
    static final Duration WAIT = Duration.ofSeconds(Long.getLong("sample-test.cluster-wait-seconds", 60));

    private ConnectedInstances() {
    }

    /** Until the echo and KV clients are each connected to an instance of the service. */
    static void awaitBoth(RdmaConnections connections) {
        await().atMost(WAIT).until(() -> !connections.group("echo-client").all().isEmpty()
                && !connections.group("kv-client").all().isEmpty());
    }
}

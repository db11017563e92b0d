package io.rdma.verbs.provider.simulated;

import org.jspecify.annotations.Nullable;

/**
 * The port counter increments of one run of a QP's send queue, added to the ports when the
 * run ends rather than per message: the counters are shared by every QP of a port, and an
 * atomic add per message would stall the poster on every other core's traffic. Used only
 * under the QP's send lock.
 */
final class PortTally {

    private @Nullable SimulatedPort source;
    private @Nullable SimulatedPort destination;
    private long packets;
    private long bytes;

    void add(SimulatedPort from, SimulatedPort to, int messagePackets, long messageBytes) {
        if (from != source || to != destination) {
            flush();
            source = from;
            destination = to;
        }
        packets += messagePackets;
        bytes += messageBytes;
    }

    void flush() {
        if (source != null && destination != null && (packets != 0 || bytes != 0)) { // add sets both
            source.account(destination, packets, bytes);
        }
        packets = 0;
        bytes = 0;
    }
}

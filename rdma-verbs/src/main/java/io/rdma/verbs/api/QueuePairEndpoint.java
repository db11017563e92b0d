package io.rdma.verbs.api;

/**
 * What a peer must learn to reach a QP, as exchanged out of band (verbs manual §11.2): QP number,
 * LID, GID and starting PSN. Memory addresses and rkeys travel separately, per buffer.
 *
 * <p>Immutable, so thread-safe.
 */
public record QueuePairEndpoint(int qpNumber, int lid, Gid gid, int packetSequenceNumber) {

    /**
     * The address vector that reaches this endpoint over {@code options}' port and GID: with a GRH
     * (source GID index, hop limit, traffic class, flow label) when this endpoint has no LID, as on
     * RoCE where the GID is the address, or when {@link ConnectOptions#globalRoute()} asks for one.
     */
    public AddressVector addressVector(ConnectOptions options) {
        GlobalRoute route = lid == 0 || options.globalRoute()
                ? new GlobalRoute(gid, options.gidIndex(), options.flowLabel(), options.hopLimit(), options.trafficClass())
                : null;
        return new AddressVector(lid, options.serviceLevel(), 0, options.port(), route);
    }
}

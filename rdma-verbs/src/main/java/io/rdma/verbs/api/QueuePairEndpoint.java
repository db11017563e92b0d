package io.rdma.verbs.api;

/**
 * What a peer must learn to reach a QP, as exchanged out of band (verbs manual §11.2): QP number,
 * LID, GID and starting PSN. Memory addresses and rkeys travel separately, per buffer.
 */
public record QueuePairEndpoint(int qpNumber, int lid, Gid gid, int packetSequenceNumber) {

    /** The address vector that reaches this endpoint from {@code localPort}, with a GRH when the GID is set. */
    public AddressVector addressVector(int localPort, int localGidIndex) {
        return gid == null || gid.isZero()
                ? AddressVector.ofLid(lid, localPort)
                : new AddressVector(lid, 0, 0, localPort, GlobalRoute.to(gid, localGidIndex));
    }
}

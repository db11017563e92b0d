package io.rdma.verbs.api;

/**
 * {@code struct ibv_global_route}: the GRH part of an address vector, required on RoCE.
 *
 * <p>Immutable, so thread-safe.
 */
public record GlobalRoute(Gid destinationGid, int sourceGidIndex, int flowLabel, int hopLimit, int trafficClass) {

    public static GlobalRoute to(Gid destinationGid, int sourceGidIndex) {
        return new GlobalRoute(destinationGid, sourceGidIndex, 0, 64, 0);
    }
}

package io.rdma.verbs.api;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_ah_attr}: the path to a remote port, used by RC/UC at RTR and by address
 * handles for UD. {@code globalRoute} is {@code null} when no GRH is used (IB within a subnet).
 *
 * <p>Immutable, so thread-safe.
 */
public record AddressVector(int destinationLid, int serviceLevel, int sourcePathBits, int portNumber,
                            @Nullable GlobalRoute globalRoute) {

    public static AddressVector ofLid(int lid, int port) {
        return new AddressVector(lid, 0, 0, port, null);
    }

    public static AddressVector ofGid(Gid gid, int sourceGidIndex, int port) {
        return new AddressVector(0, 0, 0, port, GlobalRoute.to(gid, sourceGidIndex));
    }

    public boolean isGlobal() {
        return globalRoute != null;
    }
}

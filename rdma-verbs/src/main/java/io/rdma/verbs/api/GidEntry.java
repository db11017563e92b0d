package io.rdma.verbs.api;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A used entry of a port's GID table ({@code struct ibv_gid_entry}): the GID, how it frames
 * packets and, on RoCE, the network device whose address it was made from.
 *
 * @param netdev the network device on RoCE ({@code gid_attrs/ndevs/<index>}); null on InfiniBand
 *
 * <p>Immutable, so thread-safe.
 */
public record GidEntry(int index, Gid gid, GidType type, @Nullable String netdev) {

    public GidEntry {
        Objects.requireNonNull(gid, "gid");
        Objects.requireNonNull(type, "type");
    }

    /** Whether the GID is an IPv4 address in IPv6 form ({@code ::ffff:a.b.c.d}). */
    public boolean isIpv4() {
        return gid.ipv4() >= 0;
    }

    /** As {@code show_gids} prints a row: {@code 1 ::ffff:10.77.0.1 RoCE v2 rxenet0}. */
    @Override
    public String toString() {
        return index + " " + gid + " " + type.label() + (netdev == null ? "" : " " + netdev);
    }
}

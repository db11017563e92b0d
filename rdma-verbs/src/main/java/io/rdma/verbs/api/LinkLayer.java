package io.rdma.verbs.api;

/**
 * {@code IBV_LINK_LAYER_*}: InfiniBand addresses ports by LID, Ethernet (RoCE) by GID only.
 *
 * <p>Immutable, so thread-safe.
 */
public enum LinkLayer {
    UNSPECIFIED, INFINIBAND, ETHERNET;

    public static LinkLayer of(int value) {
        return value >= 0 && value < values().length ? values()[value] : UNSPECIFIED;
    }
}

package io.rdma.verbs.api;

/**
 * {@code enum ibv_gid_type}: how packets sent from a GID are framed. RoCE v2 (UDP/IP) is the one
 * routable across IP subnets and the one rdma_cm picks for an IPv4 address; RoCE v1 frames are
 * Ethernet-only. sysfs names IB and RoCE v1 alike ({@code IB/RoCE v1}): the port's link layer
 * tells them apart, and the transport: an iWARP port's GID (siw's, made from its MAC address) is
 * IB, the kernel's type for a GID that frames no RoCE, though its link layer is Ethernet.
 *
 * <p>Immutable, so thread-safe.
 */
public enum GidType {
    IB("IB"),
    ROCE_V1("RoCE v1"),
    ROCE_V2("RoCE v2");

    private final String label;

    GidType(String label) {
        this.label = label;
    }

    /** The name {@code show_gids} and sysfs use. */
    public String label() {
        return label;
    }
}

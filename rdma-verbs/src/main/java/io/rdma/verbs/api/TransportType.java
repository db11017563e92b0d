package io.rdma.verbs.api;

/**
 * The transport a device carries RDMA with: {@code enum ibv_transport_type}, the
 * {@code transport_type} of {@code struct ibv_device} (verbs manual §2.1, which lists it beside the
 * node type). The verbs are one API over InfiniBand, RoCE and iWARP fabrics (verbs manual §1), but
 * the transport decides how a queue pair connects and which queue pair types exist at all.
 *
 * <p>Immutable, so thread-safe.
 */
public enum TransportType {

    /**
     * {@code IBV_TRANSPORT_IB}: the InfiniBand transport, on InfiniBand and on Ethernet (RoCE
     * carries it in UDP/IP, or Ethernet frames for RoCE v1), told apart by the port's
     * {@link LinkLayer}. RC, UC and UD queue pairs; connected QPs are walked to RTS with the peer's
     * QPN, GID and PSN exchanged out of band (verbs manual §11.2) or through rdma_cm. Soft-RoCE
     * ({@code rxe}) and the simulated fabric's devices, unless their spec says iWARP, are this.
     */
    INFINIBAND,

    /**
     * {@code IBV_TRANSPORT_IWARP}: RDMA over TCP (an RNIC, node type {@code IBV_NODE_RNIC}), e.g.
     * Soft-iWARP ({@code siw}). Each connection is a TCP connection the kernel's iWARP connection
     * manager sets up and hands to the queue pair, so an RC QP connects only through rdma_cm
     * ({@link ConnectionManager}), never by {@code ibv_modify_qp} with a peer's QPN and GID; there
     * are no UC or UD QPs and no address handles, and the port has a single GID, made from its
     * netdev's MAC address. A simulated device can be this ({@code DeviceSpec}'s transport): it
     * refuses other QP types and immediate data as siw does, but connects as InfiniBand does.
     */
    IWARP,

    /** {@code IBV_TRANSPORT_USNIC}: Cisco's usNIC, UD over raw Ethernet frames. */
    USNIC,

    /** {@code IBV_TRANSPORT_USNIC_UDP}: Cisco's usNIC, UD over UDP. */
    USNIC_UDP,

    /** {@code IBV_TRANSPORT_UNSPECIFIED}: a device whose provider names no transport (e.g. EFA). */
    UNSPECIFIED,

    /** {@code IBV_TRANSPORT_UNKNOWN}: libibverbs could not tell. */
    UNKNOWN
}

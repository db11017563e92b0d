package io.rdma.boot.autoconfigure;

/**
 * What the iWARP transport (siw0, iWARP NICs) lacks that a test needs, and why: the reason
 * {@link RdmaContextRunners#assumeInfinibandTransport} skips the test with on an iWARP device.
 */
public enum IwarpLack {

    IMMEDIATE_DATA("carries no immediate data (RFC 5040; siw refuses the opcodes)"),
    ATOMICS("has no atomics (atomic_cap ATOMIC_NONE on siw)"),
    RNR_FLOW_CONTROL("has no RNR flow control: a send completes once TCP has taken it, and one that finds no"
            + " receive posted ends the connection (RFC 5041), so a receiver cannot hold a sender back"),
    RELIABILITY_SETTINGS("has no reliability settings: rdma_cm carries no ACK timeout or retry counts (TCP"
            + " retransmits)"),
    IPV4_GID("has one GID, made from its MAC address: none holds an IPv4 address"),
    CONNECTING_BY_MODIFY_QP("connects queue pairs through rdma_cm only: ibv_modify_qp cannot take one to RTS"),
    ACCESS_ERROR_STATUS("reports a responder's access error as the connection's teardown (a TERMINATE;"
            + " WR_FLUSH_ERR at the requester), not as REM_ACCESS_ERR");

    private final String reason;

    IwarpLack(String reason) {
        this.reason = reason;
    }

    /** Why an iWARP device cannot run the test, after "DEVICE is iWARP, which". */
    public String reason() {
        return reason;
    }
}

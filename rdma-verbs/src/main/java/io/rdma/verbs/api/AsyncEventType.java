package io.rdma.verbs.api;

/**
 * {@code enum ibv_event_type} (verbs manual §13.1), in numeric order.
 *
 * <p>Immutable, so thread-safe.
 */
public enum AsyncEventType {
    CQ_ERR, QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR,
    DEVICE_FATAL, PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, SRQ_ERR,
    SRQ_LIMIT_REACHED, QP_LAST_WQE_REACHED, CLIENT_REREGISTER, GID_CHANGE, WQ_FATAL;

    /** @throws ArrayIndexOutOfBoundsException when {@code value} is not an {@code ibv_event_type} value */
    public static AsyncEventType of(int value) {
        return values()[value];
    }

    /** Events about a port carry a port number rather than a resource. */
    public boolean isPortEvent() {
        return this == PORT_ACTIVE || this == PORT_ERR || this == LID_CHANGE || this == PKEY_CHANGE
                || this == SM_CHANGE || this == CLIENT_REREGISTER || this == GID_CHANGE;
    }
}

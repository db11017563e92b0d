package io.rdma.spring.event;

import io.rdma.verbs.api.PortState;

/**
 * A port of a declared device changed state, as its {@code IBV_EVENT_PORT_ACTIVE} or
 * {@code IBV_EVENT_PORT_ERR} tells (verbs manual §13.1). Published on the provider's event
 * thread, after the {@link RdmaAsyncEvent} it derives from.
 *
 * @param device   the device's name under {@code rdma.devices}
 * @param port     the port, numbered from 1
 * @param oldState the state last known: queried at startup, or that of the previous change
 * @param newState {@code ACTIVE} after {@code PORT_ACTIVE}; after {@code PORT_ERR} the state the
 *                 port reports (DOWN, INIT or ARMED), or DOWN when it is already active again (its
 *                 {@code PORT_ACTIVE} follows)
 */
public record RdmaPortStateChangedEvent(String device, int port, PortState oldState, PortState newState) {
}

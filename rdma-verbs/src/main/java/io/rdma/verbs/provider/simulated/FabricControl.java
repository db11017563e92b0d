package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.PortState;

/**
 * Fault injection for tests, offered by the simulated fabric as a provider extension:
 * {@code verbs.extension(FabricControl.class)} ({@link io.rdma.verbs.api.Verbs#extension}).
 * Every change raises the async event a real device would. It acts on the devices of the
 * session it came from: on a {@link SharedFabric}, another session's devices are out of its reach,
 * as another machine's are.
 */
public interface FabricControl {

    /** Moves a port to {@code state}; ACTIVE raises {@code IBV_EVENT_PORT_ACTIVE}, anything else {@code IBV_EVENT_PORT_ERR}. */
    void setPortState(String device, int port, PortState state);

    /**
     * Drops the next {@code packets} packets leaving {@code device}/{@code port}: RC retries
     * and, once {@code retry_cnt} is exhausted, completes with {@code IBV_WC_RETRY_EXC_ERR};
     * UC and UD lose the message silently, as on a real wire.
     */
    void dropPackets(String device, int port, int packets);

    /**
     * Loses each packet leaving or reaching {@code device}/{@code port} with {@code probability}
     * (0 to 1), from now until it is set again, as {@code tc netem loss} on both directions of the
     * port's link would (the port's traffic with itself crosses no link and is not lost): 1 cuts
     * the port off (a partition; unlike a port down, the port stays ACTIVE and raises no event, so
     * only retries running out tell), 0 ends the loss. RC retries each lost packet and completes
     * with {@code IBV_WC_RETRY_EXC_ERR} once {@code retry_cnt} tries in a row were lost; UC and UD
     * lose the message silently; the connection manager's messages are lost alike.
     *
     * @throws IllegalArgumentException when {@code probability} is not within 0 to 1
     */
    void setLoss(String device, int port, double probability);

    /** Puts the QP into ERR as a device-side fault would, raising {@code IBV_EVENT_QP_FATAL}. */
    void failQueuePair(String device, int qpNumber);

    /**
     * Makes the next call of {@code verb} on {@code device} fail with {@code errno}, as a device
     * out of resources would: the creation verbs ({@code ibv_create_qp} and the like),
     * {@code ibv_modify_qp}, and {@code ibv_destroy_cq}, which then leaves the CQ in place.
     */
    void failNextVerb(String device, String verb, Errno errno);
}

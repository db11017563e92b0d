package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AccessFlag;
import io.rdma.verbs.api.AddressVector;
import io.rdma.verbs.api.Mtu;
import io.rdma.verbs.api.QueuePairAttributes;
import io.rdma.verbs.api.QueuePairState;
import io.rdma.verbs.api.QueuePairType;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * What {@code ibv_modify_qp} has set on a QP besides its state: port, keys, path and PSNs,
 * and the RC limits and timers. {@link QpTransitions} says which of them a transition needs;
 * {@link #apply} checks their values against the device and keeps them. Written and read
 * under the QP's send lock, except {@link #receivePsn}.
 */
final class QpAttributes {

    /** PSNs are 24-bit and wrap (IBA 9.7.1). */
    static final int PSN_MASK = 0xFFFFFF;

    @Nullable SimulatedPort port;
    int pkeyIndex;
    int accessMask;
    int qkey;
    Mtu pathMtu = Mtu.MTU_1024;
    int destQpNumber;
    /**
     * The PSN this responder expects next. Set at RTR by this QP; advanced by the connected
     * requester, under its send lock, as it delivers (the only writer while connected).
     */
    volatile int receivePsn;
    /** The PSN of this requester's next request packet. */
    int sendPsn;
    @Nullable AddressVector addressVector;
    @Nullable SimulatedPort remotePort;
    int maxDestRdAtomic;
    int maxRdAtomic;
    int minRnrTimer;
    int timeout;
    int retryCount;
    int rnrRetry;

    /** Keeps the attributes {@code changes} sets on a {@code type} QP of {@code device}; EINVAL for a bad value. */
    void apply(QueuePairAttributes changes, QueuePairType type, SimulatedDevice device) {
        if (changes.port() != null) {
            SimulatedPort chosen = device.port(changes.port());
            if (type == QueuePairType.RAW_PACKET && !chosen.isEthernet()) {
                throw Failures.invalid("ibv_modify_qp", "a RAW_PACKET QP needs an Ethernet port; port "
                        + chosen.number() + " of " + device.name() + " is InfiniBand");
            }
            port = chosen;
        }
        if (changes.pkeyIndex() != null && changes.pkeyIndex() != 0) {
            throw Failures.invalid("ibv_modify_qp", "pkey_index " + changes.pkeyIndex()
                    + " is outside the P_Key table of 1 entry");
        }
        if (changes.accessFlags() != null) {
            accessMask = AccessFlag.mask(changes.accessFlags());
        }
        if (changes.qkey() != null) {
            qkey = changes.qkey();
        }
        if (changes.pathMtu() != null) {
            Mtu portMtu = device.spec().mtu();
            if (changes.pathMtu().value() > portMtu.value()) {
                throw Failures.invalid("ibv_modify_qp", "path_mtu " + changes.pathMtu().bytes()
                        + " exceeds the port's active MTU " + portMtu.bytes());
            }
            pathMtu = changes.pathMtu();
        }
        if (changes.addressVector() != null) {
            AddressVector av = changes.addressVector();
            SimulatedPort local = port == null ? device.port(av.portNumber()) : port;
            if (local.isEthernet() && !av.isGlobal()) {
                throw Failures.invalid("ibv_modify_qp", "port " + local.number() + " is Ethernet (RoCE): "
                        + "IBV_QP_AV needs a GRH", "connect with the peer's GID (GID index 1 on RoCE v2)");
            }
            addressVector = av;
            remotePort = device.fabric().route(av);
        }
        int maxRdAtom = device.spec().maxQpRdAtom();
        if (changes.maxDestRdAtomic() != null) {
            maxDestRdAtomic = checkAtomics("max_dest_rd_atomic", changes.maxDestRdAtomic(), maxRdAtom);
        }
        if (changes.maxRdAtomic() != null) {
            maxRdAtomic = checkAtomics("max_rd_atomic", changes.maxRdAtomic(), maxRdAtom);
        }
        if (changes.destQpNumber() != null) {
            destQpNumber = changes.destQpNumber();
        }
        if (changes.receivePsn() != null) {
            receivePsn = changes.receivePsn() & PSN_MASK;
        }
        if (changes.sendPsn() != null) {
            sendPsn = changes.sendPsn() & PSN_MASK;
        }
        if (changes.minRnrTimer() != null) {
            minRnrTimer = changes.minRnrTimer();
        }
        if (changes.timeout() != null) {
            timeout = changes.timeout();
        }
        if (changes.retryCount() != null) {
            retryCount = changes.retryCount();
        }
        if (changes.rnrRetry() != null) {
            rnrRetry = changes.rnrRetry();
        }
    }

    private static int checkAtomics(String name, int value, int limit) {
        if (value < 0 || value > limit) {
            throw Failures.aboveLimit("ibv_modify_qp", name, value, limit);
        }
        return value;
    }

    /**
     * The port, for a QP that sends or receives: RESET → INIT requires {@code IBV_QP_PORT}
     * ({@link QpTransitions}), so every QP past RESET has one.
     */
    SimulatedPort boundPort() {
        return Objects.requireNonNull(port, "a QP past RESET has its port (IBV_QP_PORT at INIT)");
    }

    /** {@code ibv_query_qp}: these attributes with the QP's {@code state}. */
    QueuePairAttributes query(QueuePairState state) {
        return new QueuePairAttributes(state, pkeyIndex, port == null ? 0 : port.number(),
                AccessFlag.fromMask(accessMask), qkey, pathMtu, destQpNumber, receivePsn, sendPsn, addressVector,
                maxDestRdAtomic, maxRdAtomic, minRnrTimer, timeout, retryCount, rnrRetry);
    }

    /**
     * Whether this responder's connection is the one {@code requester} speaks on. On a wire the
     * packet sequence numbers of a connection tie it to its two QPs; a requester left over from
     * an earlier connection (its peer since reset and connected elsewhere) is out of sequence,
     * and its packets are dropped, so it times out instead of landing in the new connection.
     */
    boolean isConnectedTo(SimulatedQp requester) {
        return destQpNumber == requester.qpNumber() && remotePort == requester.attributes.port;
    }

    /**
     * The responder's length check of a request's packets against its own path MTU (IBA C9-92,
     * rxe's {@code check_length}): a first or middle packet carries exactly the path MTU, an
     * only or last packet at most that. The requester cut {@code length} bytes at {@code sentMtu}.
     */
    boolean segmentsFit(long length, Mtu sentMtu) {
        return sentMtu == pathMtu || length <= Math.min(sentMtu.bytes(), pathMtu.bytes());
    }
}

package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.AsyncEventType;
import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.Guid;
import io.rdma.verbs.api.GidEntry;
import io.rdma.verbs.api.GidType;
import io.rdma.verbs.api.LinkLayer;
import io.rdma.verbs.api.PhysicalPortState;
import io.rdma.verbs.api.PortAttributes;
import io.rdma.verbs.api.PortCounters;
import io.rdma.verbs.api.PortState;
import io.rdma.verbs.api.TransportType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

/**
 * A port: state, addresses (LID, GID table), the packet counters sysfs would show, and the
 * flows steering traffic that arrives here.
 */
final class SimulatedPort {

    private final SimulatedDevice device;
    private final int number;
    private final List<Gid> gids;
    private volatile PortState state;
    private int lid;
    private final AtomicInteger packetsToDrop = new AtomicInteger();
    /** The probability of losing each packet that leaves or reaches this port (FabricControl.setLoss). */
    private volatile double loss;
    private final AtomicLong xmitPackets = new AtomicLong();
    private final AtomicLong xmitBytes = new AtomicLong();
    private final AtomicLong rcvPackets = new AtomicLong();
    private final AtomicLong rcvBytes = new AtomicLong();
    private final AtomicLong xmitDiscards = new AtomicLong();
    private final AtomicLong linkDowned = new AtomicLong();
    private final List<SimulatedFlow> flows = new CopyOnWriteArrayList<>();

    SimulatedPort(SimulatedDevice device, int number) {
        this.device = device;
        this.number = number;
        this.state = device.spec().initialPortState();
        Guid portGuid = new Guid(device.guid() + number);
        List<Gid> table = new ArrayList<>();
        table.add(Gid.linkLocal(portGuid));
        // The address rdma_cm resolves: device and port, then the host, which tells apart hosts
        // that name their devices alike.
        table.add(Gid.parse("::ffff:10." + (device.index() + 1) + "." + number + "." + device.host().number()));
        table.addAll(device.spec().extraGids());
        this.gids = List.copyOf(table);
    }

    SimulatedDevice device() {
        return device;
    }

    int number() {
        return number;
    }

    List<Gid> gids() {
        return gids;
    }

    /**
     * The GID table as sysfs would show it: on Ethernet every entry belongs to the port's network
     * device ({@code <device>-port<n>}) and, on RoCE, has the spec's RoCE type; on InfiniBand, and
     * on an iWARP device (which frames no RoCE, as siw's), they are IB.
     */
    List<GidEntry> gidTable() {
        boolean roce = isEthernet() && device.spec().transport() == TransportType.INFINIBAND;
        GidType type = roce ? device.spec().roceGidType() : GidType.IB;
        String netdev = isEthernet() ? device.name() + "-port" + number : null;
        return IntStream.range(0, gids.size()).mapToObj(index -> new GidEntry(index, gids.get(index), type, netdev))
                .toList();
    }

    void assignLid(int value) {
        lid = value;
    }

    int lid() {
        return lid;
    }

    boolean isActive() {
        return state == PortState.ACTIVE;
    }

    boolean isEthernet() {
        return device.spec().linkLayer() == LinkLayer.ETHERNET;
    }

    int activeMtuBytes() {
        return device.spec().mtu().bytes();
    }

    PortAttributes attributes() {
        return new PortAttributes(number, state, physicalState(state), device.spec().mtu(), device.spec().mtu(), lid,
                isEthernet() ? 0 : 1, 0, gids.size(), 1, 1 << 30, device.spec().activeSpeed(),
                device.spec().activeWidth(), device.spec().linkLayer());
    }

    /**
     * The physical link under a logical state: every state but DOWN needs the link up (INIT and
     * ARMED wait for the subnet manager over a working link); a port taken DOWN stands for a
     * pulled cable, whose PHY polls for a peer.
     */
    private static PhysicalPortState physicalState(PortState state) {
        return state == PortState.DOWN || state == PortState.NOP ? PhysicalPortState.POLLING : PhysicalPortState.LINK_UP;
    }

    void changeState(PortState newState) {
        PortState old = state;
        state = newState;
        if (old == PortState.ACTIVE && newState != PortState.ACTIVE) {
            linkDowned.incrementAndGet();
        }
        if (old != newState) {
            device.raisePortEvent(newState == PortState.ACTIVE ? AsyncEventType.PORT_ACTIVE : AsyncEventType.PORT_ERR,
                    number);
        }
    }

    void dropNext(int packets) {
        packetsToDrop.addAndGet(packets);
    }

    void setLoss(double probability) {
        loss = probability;
    }

    /**
     * Whether a message towards {@code destination} gets through: false when it is lost (a port
     * down at either end, a loss on the link of either end, or an injected drop), as a real link
     * would lose it. A port's traffic with itself crosses no link, so no loss of a link touches it
     * (rxe's loopback, for one, never reaches the netdev where {@code tc netem} loses packets).
     */
    boolean carries(SimulatedPort destination) {
        return carriesManagement(destination) && !discarded(takeDrop());
    }

    /**
     * Whether a connection manager's message towards {@code destination} gets through: as
     * {@link #carries}, but injected drops ({@link #dropNext}) count the transport's packets only.
     */
    boolean carriesManagement(SimulatedPort destination) {
        boolean linkLost = destination != this && (lost() || destination.lost());
        return !discarded(!isActive() || !destination.isActive() || linkLost);
    }

    /** Counts a packet this port could not send when {@code lost}; returns {@code lost}. */
    private boolean discarded(boolean lost) {
        if (lost) {
            xmitDiscards.incrementAndGet();
        }
        return lost;
    }

    /** Counts traffic that got through to {@code destination} on both ports. */
    void account(SimulatedPort destination, long packets, long bytes) {
        xmitPackets.addAndGet(packets);
        xmitBytes.addAndGet(bytes);
        destination.rcvPackets.addAndGet(packets);
        destination.rcvBytes.addAndGet(bytes);
    }

    /** {@link #carries} and {@link #account} at once, for the occasional response (reads, atomics). */
    boolean transmit(SimulatedPort destination, int packets, long bytes) {
        if (!carries(destination)) {
            return false;
        }
        account(destination, packets, bytes);
        return true;
    }

    /** A raw frame leaves through this port (Ethernet is one broadcast segment here). */
    void transmitFrame(long bytes) {
        xmitPackets.incrementAndGet();
        xmitBytes.addAndGet(bytes);
    }

    /** A raw frame was steered to a flow of this port. */
    void receiveFrame(long bytes) {
        rcvPackets.incrementAndGet();
        rcvBytes.addAndGet(bytes);
    }

    private boolean lost() {
        double probability = loss;
        return probability > 0 && ThreadLocalRandom.current().nextDouble() < probability;
    }

    private boolean takeDrop() {
        while (true) {
            int left = packetsToDrop.get();
            if (left <= 0) {
                return false;
            }
            if (packetsToDrop.compareAndSet(left, left - 1)) {
                return true;
            }
        }
    }

    /**
     * The counters sysfs would show for this port, in one read: the PMA counters of
     * {@code counters/} (data in 4-byte words, as there); and on an Ethernet port, which stands
     * for Soft-RoCE, also rxe's own {@code hw_counters/}, as Debian 12's kernel shows both for
     * rxe0 (seen in CI's guest). Only what the fabric really counts is there, so nothing reads zero
     * for want of counting.
     */
    PortCounters counters() {
        Map<String, Long> pma = Map.of(
                "port_xmit_packets", xmitPackets.get(),
                "port_xmit_data", xmitBytes.get() / 4,
                "port_rcv_packets", rcvPackets.get(),
                "port_rcv_data", rcvBytes.get() / 4,
                "port_xmit_discards", xmitDiscards.get(),
                "link_downed", linkDowned.get());
        if (isEthernet()) {
            return new PortCounters(number, pma, Map.of(
                    "sent_pkts", xmitPackets.get(),
                    "rcvd_pkts", rcvPackets.get(),
                    "link_downed", linkDowned.get()));
        }
        return new PortCounters(number, pma, Map.of());
    }

    List<SimulatedFlow> flows() {
        return flows;
    }

    void addFlow(SimulatedFlow flow) {
        flows.add(flow);
        flows.sort(java.util.Comparator.comparingInt(SimulatedFlow::priority));
    }

    void removeFlow(SimulatedFlow flow) {
        flows.remove(flow);
    }
}

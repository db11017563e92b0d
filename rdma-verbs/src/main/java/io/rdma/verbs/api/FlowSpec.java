package io.rdma.verbs.api;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_flow_attr} with its specs: which packets arriving on {@code port} steer to
 * the QP the flow is created on. A {@code null} layer matches anything; within a layer a
 * field matches when {@code (packet & mask) == (value & mask)}, so a zero mask is a wildcard.
 *
 * <p>Immutable, so thread-safe.
 */
public record FlowSpec(int port, int priority, @Nullable Ethernet ethernet, @Nullable Ipv4 ipv4,
                       @Nullable Transport transport) {

    public static FlowSpec onPort(int port) {
        return new FlowSpec(port, 0, null, null, null);
    }

    public FlowSpec withEthernet(Ethernet value) {
        return new FlowSpec(port, priority, value, ipv4, transport);
    }

    public FlowSpec withIpv4(Ipv4 value) {
        return new FlowSpec(port, priority, ethernet, value, transport);
    }

    public FlowSpec withTransport(Transport value) {
        return new FlowSpec(port, priority, ethernet, ipv4, value);
    }

    public FlowSpec withPriority(int value) {
        return new FlowSpec(port, value, ethernet, ipv4, transport);
    }

    /** {@code ibv_flow_spec_eth}: MACs as the low 48 bits of a long, ether type, VLAN tag. */
    public record Ethernet(long destinationMac, long destinationMacMask, long sourceMac, long sourceMacMask,
                           int etherType, int etherTypeMask, int vlanTag, int vlanTagMask) {

        public static final long MAC_MASK = 0xFFFF_FFFF_FFFFL;

        public static Ethernet destination(long mac) {
            return new Ethernet(mac, MAC_MASK, 0, 0, 0, 0, 0, 0);
        }

        public static Ethernet etherType(int type) {
            return new Ethernet(0, 0, 0, 0, type, 0xFFFF, 0, 0);
        }
    }

    /** {@code ibv_flow_spec_ipv4}: addresses as unsigned ints in network order of significance. */
    public record Ipv4(int sourceAddress, int sourceMask, int destinationAddress, int destinationMask) {

        public static Ipv4 destination(int address) {
            return new Ipv4(0, 0, address, -1);
        }
    }

    /** {@code ibv_flow_spec_tcp_udp}: {@code IBV_FLOW_SPEC_TCP} or {@code IBV_FLOW_SPEC_UDP} with ports. */
    public record Transport(Protocol protocol, int sourcePort, int sourcePortMask, int destinationPort,
                            int destinationPortMask) {

        public static Transport destination(Protocol protocol, int port) {
            return new Transport(protocol, 0, 0, port, 0xFFFF);
        }
    }

    /** IP protocols a transport spec names, with their IANA numbers. */
    public enum Protocol {
        TCP(6), UDP(17);

        private final int number;

        Protocol(int number) {
            this.number = number;
        }

        public int number() {
            return number;
        }
    }
}

package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.FlowSpec;

/**
 * The Ethernet / IPv4 / TCP-UDP header fields flow steering looks at, parsed from a raw
 * frame or synthesized for a RoCE v2 datagram. Mutable and reused per QP: steering a packet
 * allocates nothing.
 */
final class FrameHeaders {

    static final int ETHERTYPE_IPV4 = 0x0800;
    static final int ETHERTYPE_VLAN = 0x8100;
    static final int ROCE_V2_UDP_PORT = 4791;

    long destinationMac;
    long sourceMac;
    int etherType;
    int vlanTag;
    boolean ipv4;
    int sourceAddress;
    int destinationAddress;
    int protocol;
    boolean transport;
    int sourcePort;
    int destinationPort;

    /** Parses the first {@code length} bytes of {@code frame}. */
    void parse(byte[] frame, int length) {
        ipv4 = false;
        transport = false;
        vlanTag = 0;
        if (length < 14) {
            destinationMac = 0;
            sourceMac = 0;
            etherType = 0;
            return;
        }
        destinationMac = readUnsigned(frame, 0, 6);
        sourceMac = readUnsigned(frame, 6, 6);
        int offset = 12;
        etherType = (int) readUnsigned(frame, offset, 2);
        if (etherType == ETHERTYPE_VLAN && length >= 18) {
            vlanTag = (int) readUnsigned(frame, 14, 2);
            offset = 16;
            etherType = (int) readUnsigned(frame, offset, 2);
        }
        int ip = offset + 2;
        if (etherType != ETHERTYPE_IPV4 || length < ip + 20) {
            return;
        }
        ipv4 = true;
        int headerLength = (frame[ip] & 0x0F) * 4;
        protocol = frame[ip + 9] & 0xFF;
        sourceAddress = (int) readUnsigned(frame, ip + 12, 4);
        destinationAddress = (int) readUnsigned(frame, ip + 16, 4);
        int l4 = ip + headerLength;
        if ((protocol == FlowSpec.Protocol.TCP.number() || protocol == FlowSpec.Protocol.UDP.number())
                && length >= l4 + 4) {
            transport = true;
            sourcePort = (int) readUnsigned(frame, l4, 2);
            destinationPort = (int) readUnsigned(frame, l4 + 2, 2);
        }
    }

    /** The headers of a RoCE v2 datagram between two IPv4-mapped GIDs. */
    void roceV2(long sourceIpv4, long destinationIpv4, int sourceUdpPort) {
        destinationMac = 0;
        sourceMac = 0;
        etherType = ETHERTYPE_IPV4;
        vlanTag = 0;
        ipv4 = sourceIpv4 >= 0 && destinationIpv4 >= 0;
        sourceAddress = (int) sourceIpv4;
        destinationAddress = (int) destinationIpv4;
        protocol = FlowSpec.Protocol.UDP.number();
        transport = ipv4;
        sourcePort = sourceUdpPort;
        destinationPort = ROCE_V2_UDP_PORT;
    }

    boolean matches(FlowSpec spec) {
        FlowSpec.Ethernet eth = spec.ethernet();
        if (eth != null && !(masked(destinationMac, eth.destinationMac(), eth.destinationMacMask())
                && masked(sourceMac, eth.sourceMac(), eth.sourceMacMask())
                && masked(etherType, eth.etherType(), eth.etherTypeMask())
                && masked(vlanTag, eth.vlanTag(), eth.vlanTagMask()))) {
            return false;
        }
        FlowSpec.Ipv4 ip = spec.ipv4();
        if (ip != null && !(ipv4 && masked(sourceAddress, ip.sourceAddress(), ip.sourceMask())
                && masked(destinationAddress, ip.destinationAddress(), ip.destinationMask()))) {
            return false;
        }
        FlowSpec.Transport l4 = spec.transport();
        return l4 == null || (transport && protocol == l4.protocol().number()
                && masked(sourcePort, l4.sourcePort(), l4.sourcePortMask())
                && masked(destinationPort, l4.destinationPort(), l4.destinationPortMask()));
    }

    private static boolean masked(long actual, long expected, long mask) {
        return (actual & mask) == (expected & mask);
    }

    private static long readUnsigned(byte[] bytes, int offset, int length) {
        long value = 0;
        for (int i = 0; i < length; i++) {
            value = (value << 8) | (bytes[offset + i] & 0xFF);
        }
        return value;
    }
}

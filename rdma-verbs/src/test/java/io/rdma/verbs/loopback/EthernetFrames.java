package io.rdma.verbs.loopback;

import io.rdma.verbs.api.FlowSpec.Protocol;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Whole Ethernet II / IPv4 / UDP or TCP frames, as a RAW_PACKET QP sends them. */
final class EthernetFrames {

    static final int ETHERNET_HEADER = 14;
    static final int IPV4_HEADER = 20;
    static final int ETHER_TYPE_IPV4 = 0x0800;

    private EthernetFrames() {
    }

    /** Writes a frame with {@code payload} bytes of transport payload at {@code into}'s start; returns its length. */
    static int write(MemorySegment into, long destinationMac, long sourceMac, int sourceIp, int destinationIp,
                     Protocol protocol, int sourcePort, int destinationPort, int payload) {
        int transportHeader = protocol == Protocol.UDP ? 8 : 20;
        int ipLength = IPV4_HEADER + transportHeader + payload;
        ByteBuffer frame = ByteBuffer.allocate(ETHERNET_HEADER + ipLength).order(ByteOrder.BIG_ENDIAN);
        putMac(frame, destinationMac);
        putMac(frame, sourceMac);
        frame.putShort((short) ETHER_TYPE_IPV4);
        int ipStart = frame.position();
        frame.put((byte) 0x45).put((byte) 0).putShort((short) ipLength).putShort((short) 1).putShort((short) 0)
                .put((byte) 64).put((byte) protocol.number()).putShort((short) 0)
                .putInt(sourceIp).putInt(destinationIp);
        frame.putShort(ipStart + 10, ipv4Checksum(frame, ipStart));
        frame.putShort((short) sourcePort).putShort((short) destinationPort);
        if (protocol == Protocol.UDP) {
            frame.putShort((short) (8 + payload)).putShort((short) 0);
        } else {
            frame.putInt(1).putInt(0).put((byte) 0x50).put((byte) 0x18).putShort((short) 0xFFFF)
                    .putShort((short) 0).putShort((short) 0);
        }
        for (int i = 0; i < payload; i++) {
            frame.put((byte) i);
        }
        MemorySegment.copy(MemorySegment.ofArray(frame.array()), 0, into, 0, frame.capacity());
        return frame.capacity();
    }

    private static void putMac(ByteBuffer frame, long mac) {
        for (int shift = 40; shift >= 0; shift -= 8) {
            frame.put((byte) (mac >>> shift));
        }
    }

    private static short ipv4Checksum(ByteBuffer frame, int start) {
        int sum = 0;
        for (int i = 0; i < IPV4_HEADER; i += 2) {
            sum += frame.getShort(start + i) & 0xFFFF;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (short) ~sum;
    }
}

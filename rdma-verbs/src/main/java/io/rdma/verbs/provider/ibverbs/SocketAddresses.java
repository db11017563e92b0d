package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.provider.ibverbs.generated.in6_addr;
import io.rdma.verbs.provider.ibverbs.generated.in_addr;
import io.rdma.verbs.provider.ibverbs.generated.rdma_h;
import io.rdma.verbs.provider.ibverbs.generated.sockaddr_in;
import io.rdma.verbs.provider.ibverbs.generated.sockaddr_in6;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import org.jspecify.annotations.Nullable;

/** {@link InetSocketAddress} to and from {@code struct sockaddr_in} / {@code sockaddr_in6} (ports and IPv4 big-endian). */
final class SocketAddresses {

    private SocketAddresses() {
    }

    static MemorySegment toNative(InetSocketAddress address, Arena arena) {
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("unresolved address " + address + ": resolve the host name first");
        }
        short port = Short.reverseBytes((short) address.getPort());
        if (address.getAddress() instanceof Inet4Address ipv4) {
            MemorySegment sin = sockaddr_in.allocate(arena);
            sockaddr_in.sin_family(sin, (short) rdma_h.AF_INET());
            sockaddr_in.sin_port(sin, port);
            MemorySegment.copy(ipv4.getAddress(), 0, sockaddr_in.sin_addr(sin), ValueLayout.JAVA_BYTE, 0, 4);
            return sin;
        }
        Inet6Address ipv6 = (Inet6Address) address.getAddress();
        MemorySegment sin6 = sockaddr_in6.allocate(arena);
        sockaddr_in6.sin6_family(sin6, (short) rdma_h.AF_INET6());
        sockaddr_in6.sin6_port(sin6, port);
        MemorySegment.copy(ipv6.getAddress(), 0, sockaddr_in6.sin6_addr(sin6), ValueLayout.JAVA_BYTE, 0, 16);
        sockaddr_in6.sin6_scope_id(sin6, ipv6.getScopeId());
        return sin6;
    }

    /** Reads a {@code sockaddr_in} or {@code sockaddr_in6}; null for another family. */
    static @Nullable InetSocketAddress fromNative(MemorySegment sockaddr) {
        short family = sockaddr.get(ValueLayout.JAVA_SHORT, 0);
        try {
            if (family == rdma_h.AF_INET()) {
                MemorySegment sin = sockaddr.reinterpret(sockaddr_in.sizeof());
                byte[] address = sockaddr_in.sin_addr(sin).asSlice(0, in_addr.sizeof()).toArray(ValueLayout.JAVA_BYTE);
                return new InetSocketAddress(InetAddress.getByAddress(address),
                        Short.toUnsignedInt(Short.reverseBytes(sockaddr_in.sin_port(sin))));
            }
            if (family == rdma_h.AF_INET6()) {
                MemorySegment sin6 = sockaddr.reinterpret(sockaddr_in6.sizeof());
                byte[] address = sockaddr_in6.sin6_addr(sin6).asSlice(0, in6_addr.sizeof())
                        .toArray(ValueLayout.JAVA_BYTE);
                return new InetSocketAddress(InetAddress.getByAddress(address),
                        Short.toUnsignedInt(Short.reverseBytes(sockaddr_in6.sin6_port(sin6))));
            }
            return null;
        } catch (UnknownHostException e) {
            throw new IllegalStateException("a raw address is always valid", e);
        }
    }
}

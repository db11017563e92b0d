package io.rdma.verbs.api;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * {@code union ibv_gid}: 16 bytes, an IPv6 address in form (RoCE v2 GIDs map IPv4 as {@code ::ffff:a.b.c.d}).
 *
 * <p>Immutable, so thread-safe.
 */
public final class Gid {

    public static final int LENGTH = 16;
    public static final Gid ZERO = new Gid(new byte[LENGTH]);

    private final byte[] raw;

    private Gid(byte[] raw) {
        this.raw = raw;
    }

    /** @throws IllegalArgumentException when {@code raw} is not 16 bytes */
    public static Gid of(byte[] raw) {
        if (raw.length != LENGTH) {
            throw new IllegalArgumentException("a GID is 16 bytes, not " + raw.length);
        }
        return new Gid(raw.clone());
    }

    /**
     * Parses an IPv6 literal ({@code fe80::1}, {@code ::ffff:10.0.0.1}).
     *
     * @throws IllegalArgumentException when {@code text} is not an IP address literal
     */
    public static Gid parse(String text) {
        try {
            InetAddress address = InetAddress.getByName(text.contains(":") ? text : "::ffff:" + text);
            byte[] bytes = address.getAddress();
            if (bytes.length == 4) {
                byte[] mapped = new byte[LENGTH];
                mapped[10] = (byte) 0xff;
                mapped[11] = (byte) 0xff;
                System.arraycopy(bytes, 0, mapped, 12, 4);
                bytes = mapped;
            }
            return new Gid(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not a GID (IPv6 literal): " + text, e);
        }
    }

    /** A link-local GID made from a port GUID: {@code fe80::<guid>}, as IB subnet managers assign. */
    public static Gid linkLocal(Guid portGuid) {
        byte[] bytes = new byte[LENGTH];
        bytes[0] = (byte) 0xfe;
        bytes[1] = (byte) 0x80;
        for (int i = 0; i < 8; i++) {
            bytes[15 - i] = (byte) (portGuid.value() >>> (8 * i));
        }
        return new Gid(bytes);
    }

    public byte[] toBytes() {
        return raw.clone();
    }

    public byte byteAt(int index) {
        return raw[index];
    }

    public boolean isZero() {
        return Arrays.equals(raw, ZERO.raw);
    }

    /** The IPv4 address of an IPv4-mapped GID in dotted form ({@code 10.77.0.1}); empty when it is not IPv4-mapped. */
    public Optional<String> ipv4Address() {
        long ipv4 = ipv4();
        return ipv4 < 0 ? Optional.empty() : Optional.of((ipv4 >>> 24) + "." + ((ipv4 >>> 16) & 0xff) + "."
                + ((ipv4 >>> 8) & 0xff) + "." + (ipv4 & 0xff));
    }

    /** The IPv4 address of an IPv4-mapped GID, as an int; -1 when the GID is not IPv4-mapped. */
    public long ipv4() {
        for (int i = 0; i < 10; i++) {
            if (raw[i] != 0) {
                return -1;
            }
        }
        if (raw[10] != (byte) 0xff || raw[11] != (byte) 0xff) {
            return -1;
        }
        return ((raw[12] & 0xffL) << 24) | ((raw[13] & 0xffL) << 16) | ((raw[14] & 0xffL) << 8) | (raw[15] & 0xffL);
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof Gid gid && Arrays.equals(raw, gid.raw);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }

    /**
     * The IPv6 text form, with an IPv4-mapped GID (RoCE v2 over IPv4) as {@code ::ffff:10.77.0.1},
     * the form {@code ibv_devinfo} and {@code show_gids} print, not {@code ::ffff:a4d:1}.
     */
    @Override
    public String toString() {
        Optional<String> ipv4 = ipv4Address();
        if (ipv4.isPresent()) {
            return "::ffff:" + ipv4.get();
        }
        try {
            return Inet6Address.getByAddress(null, raw, -1).getHostAddress().replaceAll("(^|:)0(:0)+(:|$)", "::");
        } catch (UnknownHostException e) {
            return HexFormat.of().formatHex(raw);
        }
    }
}

package io.rdma.verbs.wire;

import io.rdma.verbs.api.Gid;
import io.rdma.verbs.api.QueuePairEndpoint;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The text message in which the two sides of rdma-core's {@code ibv_rc_pingpong} tell each other
 * their QP's address over TCP ({@code libibverbs/examples/rc_pingpong.c}, v44:
 * {@code pp_client_exch_dest}, {@code pp_server_exch_dest}): {@code sprintf(msg,
 * "%04x:%06x:%06x:%s", lid, qpn, psn, gid)} into {@code char msg[sizeof
 * "0000:000000:000000:00000000000000000000000000000000"]}, written and read as all 52 bytes, the
 * terminating NUL included.
 *
 * <p>The GID is {@code pingpong.c}'s {@code gid_to_wire_gid}: each 4-byte word of the GID read
 * in host order, {@code htobe32}'d and printed {@code %08x}, which on any host gives the 16 bytes
 * in memory order as 32 lowercase hex digits; {@code wire_gid_to_gid} reverses it.
 */
final class PingpongAddressMessage {

    /** {@code sizeof msg}: 51 characters and the NUL. */
    static final int LENGTH = 52;

    /** What {@code sprintf} produces; the C side's {@code sscanf("%x:%x:%x:%s")} reads exactly this back. */
    private static final Pattern FORMAT =
            Pattern.compile("([0-9a-f]{4}):([0-9a-f]{6}):([0-9a-f]{6}):([0-9a-f]{32})\0");

    private PingpongAddressMessage() {
    }

    static byte[] encode(QueuePairEndpoint endpoint) {
        String text = String.format(Locale.ROOT, "%04x:%06x:%06x:%s\0", endpoint.lid(), endpoint.qpNumber(),
                endpoint.packetSequenceNumber(), HexFormat.of().formatHex(endpoint.gid().toBytes()));
        byte[] message = text.getBytes(StandardCharsets.US_ASCII);
        if (message.length != LENGTH) {
            throw new IllegalArgumentException("LID 0x" + Integer.toHexString(endpoint.lid()) + ", QPN 0x"
                    + Integer.toHexString(endpoint.qpNumber()) + " or PSN 0x"
                    + Integer.toHexString(endpoint.packetSequenceNumber())
                    + " is wider than ibv_rc_pingpong's %04x:%06x:%06x fields");
        }
        return message;
    }

    static QueuePairEndpoint decode(byte[] message) {
        Matcher fields = FORMAT.matcher(new String(message, StandardCharsets.US_ASCII));
        if (message.length != LENGTH || !fields.matches()) {
            throw new IllegalArgumentException("not an ibv_rc_pingpong address message (\"%04x:%06x:%06x:<GID as 32 "
                    + "hex digits>\" and a NUL, 52 bytes): " + message.length + " bytes "
                    + HexFormat.ofDelimiter(" ").formatHex(message));
        }
        return new QueuePairEndpoint(Integer.parseInt(fields.group(2), 16), Integer.parseInt(fields.group(1), 16),
                Gid.of(HexFormat.of().parseHex(fields.group(4))), Integer.parseInt(fields.group(3), 16));
    }
}

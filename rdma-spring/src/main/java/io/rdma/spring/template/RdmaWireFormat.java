package io.rdma.spring.template;

import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.TransportType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * How request/reply travels, so that a peer written in C against libibverbs can take part: every
 * message of it is a SEND with immediate data ({@code IBV_WR_SEND_WITH_IMM}) whose 32-bit
 * immediate value ({@code ntohl(wc.imm_data)} on the receiving side) carries, in its top two bits,
 * the kind of message and, in the low 30 bits, the correlation id the requester chose:
 *
 * <pre>
 *  31 30 29                                                   0
 * +-----+------------------------------------------------------+
 * |kind |                  correlation id                      |
 * +-----+------------------------------------------------------+
 * kind 00 application data: the low 30 bits are the application's own immediate value
 *      01 request: the receiver answers with kind 10 or 11 and the same correlation id
 *      10 reply:   the payload is the answer
 *      11 error reply: the payload is UTF-8 "type\nmessage", the exception the receiver's
 *                       listener threw (its class name) and its message
 * </pre>
 *
 * The payload is the converted message, with no header. Immediate data stays the application's
 * where the format allows: an RDMA write with immediate data carries all 32 bits (its completion
 * is told apart by opcode), a send with immediate data the low 30 (the template refuses a value
 * with either top bit set). A listener that answers a message of kind 00 with immediate data echoes
 * that value unchanged, as before request/reply existed; a message without immediate data is
 * answered without.
 *
 * <p><b>Without immediate data</b> (iWARP, RFC 5040: {@link #inBand(QueuePair)}), the same 32-bit
 * word travels in band: every SEND on such a channel, request/reply or not, starts with a 4-byte
 * header, the word in network byte order, and the payload follows it. A plain message's word is
 * 0 (kind 00, its low 30 bits reserved as 0); a request, a reply and an error reply carry their
 * kind and correlation id as above. Immediate data of the application's own (kind 00 with a
 * value, RDMA writes with immediate data) does not exist there, and the template refuses it. RDMA
 * writes, reads and atomics carry no header. A message shorter than the header is dropped and
 * counted as unhandled. Both ends of a connection have the same transport, so both use the same
 * framing.
 */
public final class RdmaWireFormat {

    /** The kind of a send with immediate data whose top bits are 00: the value is the application's. */
    public static final int APPLICATION = 0;
    public static final int REQUEST = 1;
    public static final int REPLY = 2;
    public static final int ERROR_REPLY = 3;
    /** The largest correlation id, and the largest immediate value of a send the application may use. */
    public static final int MAX_CORRELATION_ID = (1 << 30) - 1;
    private static final int KIND_SHIFT = 30;
    /** The bytes in front of a send's payload on a channel whose device carries no immediate data. */
    public static final int IN_BAND_HEADER = Integer.BYTES;
    private static final ValueLayout.OfInt IN_BAND_WORD = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private RdmaWireFormat() {
    }

    /** The kind that {@code immediateData}'s top two bits give. */
    public static int kind(int immediateData) {
        return immediateData >>> KIND_SHIFT;
    }

    public static int correlationId(int immediateData) {
        return immediateData & MAX_CORRELATION_ID;
    }

    /** The immediate value of a message of {@code kind} with {@code correlationId}. */
    public static int immediateData(int kind, int correlationId) {
        return kind << KIND_SHIFT | (correlationId & MAX_CORRELATION_ID);
    }

    /** Whether {@code immediateData} is a reply or an error reply: the requester's, never a listener's. */
    public static boolean isReply(int immediateData) {
        return kind(immediateData) >= REPLY;
    }

    /** Whether the sends of {@code qp} carry the word in band: its device has no immediate data (iWARP). */
    public static boolean inBand(QueuePair qp) {
        return qp.context().device().transportType() == TransportType.IWARP;
    }

    /**
     * Whether a send with immediate value {@code immediateData} can go in band: a message of
     * request/reply can, the application's own immediate data cannot.
     */
    public static boolean travelsInBand(int immediateData) {
        return kind(immediateData) != APPLICATION;
    }

    /** Writes {@code word}, the in-band header, at the start of {@code buffer}. */
    public static void writeInBandWord(MemorySegment buffer, int word) {
        buffer.set(IN_BAND_WORD, 0, word);
    }

    /** The in-band header at the start of {@code buffer}. */
    public static int inBandWord(MemorySegment buffer) {
        return buffer.get(IN_BAND_WORD, 0);
    }

    /** The payload of an error reply: {@code type}, a newline, and {@code message}, in UTF-8. */
    public static byte[] errorPayload(String type, String message) {
        return (type + "\n" + message).getBytes(StandardCharsets.UTF_8);
    }

    /** The exception an error reply's payload names, as {@code [type, message]}. */
    static String[] parseErrorPayload(byte[] payload) {
        String text = new String(payload, StandardCharsets.UTF_8);
        int newline = text.indexOf('\n');
        return newline < 0 ? new String[] {text, ""}
                : new String[] {text.substring(0, newline), text.substring(newline + 1)};
    }
}

package io.rdma.spring.template;

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

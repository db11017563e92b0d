package io.rdma.verbs.twohosts;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The demo's protocol: request {@code n} carries its round number and a pattern of a length
 * that varies with {@code n} (1 to 2000 bytes); the response is the request reversed and
 * XORed with 0xA5. Both sides check every byte, so a lost, duplicated, reordered or corrupted
 * message fails the run.
 */
final class RequestResponse {

    /** The largest message: a round number and 2000 pattern bytes. */
    static final int MAX_MESSAGE = Integer.BYTES + 2000;

    private RequestResponse() {
    }

    static byte[] request(int round) {
        ByteBuffer request = ByteBuffer.allocate(Integer.BYTES + patternLength(round)).putInt(round);
        for (int i = 0; request.hasRemaining(); i++) {
            request.put(patternByte(round, i));
        }
        return request.array();
    }

    /** Fails unless {@code message} is exactly request {@code round}. */
    static void checkRequest(byte[] message, int round) {
        if (message.length < Integer.BYTES || ByteBuffer.wrap(message).getInt() != round) {
            throw new IllegalStateException("expected request " + round + ", got " + describe(message));
        }
        if (!Arrays.equals(message, request(round))) {
            throw new IllegalStateException("request " + round + " arrived corrupted: " + describe(message));
        }
    }

    static byte[] response(byte[] request) {
        byte[] response = new byte[request.length];
        for (int i = 0; i < request.length; i++) {
            response[i] = (byte) (request[request.length - 1 - i] ^ 0xA5);
        }
        return response;
    }

    /** Fails unless {@code message} is the response to request {@code round}. */
    static void checkResponse(byte[] message, int round) {
        if (!Arrays.equals(message, response(request(round)))) {
            throw new IllegalStateException("wrong response to request " + round + ": " + describe(message));
        }
    }

    private static int patternLength(int round) {
        return 1 + (round * 397) % 2000;
    }

    private static byte patternByte(int round, int index) {
        return (byte) (round * 31 + index * 7);
    }

    private static String describe(byte[] message) {
        byte[] start = Arrays.copyOf(message, Math.min(8, message.length));
        return message.length + " bytes starting " + Arrays.toString(start);
    }
}

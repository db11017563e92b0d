package io.rdma.sample;

import java.nio.ByteBuffer;

/**
 * The key-value store's control requests from client to server, on the wire: one byte saying
 * which, then its fields. The reply to a layout request is the layout ({@link KvStoreLayout#encode}),
 * to a slot written {@link #ACKNOWLEDGED}.
 */
sealed interface KvControl {

    byte[] ACKNOWLEDGED = {'A'};

    /** Asks for the layout of the server's store. */
    record LayoutRequest() implements KvControl {
        @Override
        public byte[] encode() {
            return new byte[] {'L'};
        }
    }

    /** Slot number {@code slot} (bucket × slots per bucket + slot in bucket) was written by RDMA. */
    record SlotWritten(int slot) implements KvControl {
        @Override
        public byte[] encode() {
            return ByteBuffer.allocate(1 + Integer.BYTES).put((byte) 'W').putInt(slot).array();
        }
    }

    byte[] encode();

    static KvControl decode(byte[] message) {
        ByteBuffer in = ByteBuffer.wrap(message);
        return switch (in.get()) {
            case 'L' -> new LayoutRequest();
            case 'W' -> new SlotWritten(in.getInt());
            default -> throw new IllegalArgumentException("not a key-value control request: first byte " + message[0]);
        };
    }
}

package io.rdma.spring.connection;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;
import java.util.UUID;

/**
 * What an outbound connection sends as the private data of every connect, the same for all its
 * reconnections: a listener that holds a peer of the same identity knows that peer's connection
 * is over (its client gave it up to connect again) although no disconnect reached the listener,
 * as when the client's link went down or a partition lost the disconnect. Without it a listener
 * at {@code max-connections} keeps a dead peer's place and leaves the reconnection waiting for good.
 */
record ClientIdentity(UUID id) {

    /** Tells this private data apart from an application's own (rdma_cm carries at most 56 bytes). */
    private static final byte[] MAGIC = {'R', 'S', 'B', 'c', 'l', 'i', 'd', '1'};
    private static final int LENGTH = MAGIC.length + 16;

    static ClientIdentity random() {
        return new ClientIdentity(UUID.randomUUID());
    }

    byte[] privateData() {
        return ByteBuffer.allocate(LENGTH).put(MAGIC).putLong(id.getMostSignificantBits())
                .putLong(id.getLeastSignificantBits()).array();
    }

    /** The identity in a connection request's private data; empty when the client sent none (not a starter). */
    static Optional<ClientIdentity> of(byte[] privateData) {
        if (privateData.length < LENGTH || !Arrays.equals(privateData, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            return Optional.empty();
        }
        ByteBuffer data = ByteBuffer.wrap(privateData, MAGIC.length, 16);
        return Optional.of(new ClientIdentity(new UUID(data.getLong(), data.getLong())));
    }
}

package io.rdma.sample;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * The key-value store's requests from client to server, sent as typed messages
 * ({@code convertSendAndReceive}): JSON with their type's name, converted back by the server's
 * listener. The reply to a {@link LayoutRequest} is the {@link KvStoreLayout}, to a
 * {@link SlotWritten} an {@link Acknowledged}.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({@JsonSubTypes.Type(value = KvControl.LayoutRequest.class, name = "layout"),
        @JsonSubTypes.Type(value = KvControl.SlotWritten.class, name = "slot-written")})
sealed interface KvControl {

    /** Asks for the layout of the server's store. */
    record LayoutRequest() implements KvControl {
    }

    /** Slot number {@code slot} (bucket × slots per bucket + slot in bucket) was written by RDMA. */
    record SlotWritten(int slot) implements KvControl {
    }

    /** The server has read a written slot and indexed its key. */
    record Acknowledged() {
    }
}

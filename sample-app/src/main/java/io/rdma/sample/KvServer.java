package io.rdma.sample;

import io.rdma.spring.listener.RdmaListener;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.RemoteBuffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.stereotype.Component;

/**
 * The key-value store's server: owns the {@code kv-store} memory pool, registered for remote
 * read, write and atomics, whose buffers are the store's buckets ({@link KvStoreLayout}). Clients
 * read and write it with one-sided verbs; the server's CPU takes part only in two requests of the
 * {@code kv} listener's peers ({@link KvControl}): the layout (answered with it), and "slot written",
 * which a client sends after its RDMA write of the slot (RC delivers it after the write). For that
 * the server reads the slot in its own memory, keeps its index of which key is where up to date,
 * and acknowledges, so that a client's PUT returns only once the server has seen the new bytes in
 * its memory.
 */
@Component
class KvServer {

    private static final Log logger = LogFactory.getLog(KvServer.class);

    private final MemoryPool store;
    private final KvStoreLayout layout;
    private final Map<Integer, String> keysBySlot = new ConcurrentHashMap<>();

    /** Formats the store (every lock word 0, every slot empty) before any client can connect. */
    KvServer(@Qualifier("kv-store") MemoryPool store, SampleProperties properties) {
        this.store = store;
        int slotsPerBucket = properties.kv().slotsPerBucket();
        RemoteBuffer region = store.remote();
        this.layout = new KvStoreLayout(region.address(), region.rkey(), store.capacity(), store.bufferSize(),
                slotsPerBucket, new SecureRandom().nextLong());
        byte[] empty = KvSlot.EMPTY.encode(layout.slotSize());
        for (int bucket = 0; bucket < layout.buckets(); bucket++) {
            MemorySegment memory = store.buffer(bucket).segment();
            memory.set(ValueLayout.JAVA_LONG, 0, 0);
            for (int slot = 0; slot < slotsPerBucket; slot++) {
                MemorySegment.copy(empty, 0, memory, ValueLayout.JAVA_BYTE, layout.slotOffset(slot), empty.length);
            }
        }
    }

    /** A request of a client: the layout, or a slot it has written; what is returned is the reply. */
    @RdmaListener(id = "kv-server", connectionListener = "kv")
    Object receive(KvControl request) {
        return switch (request) {
            case KvControl.LayoutRequest ignored -> layout;
            case KvControl.SlotWritten written -> {
                index(written.slot());
                yield new KvControl.Acknowledged();
            }
        };
    }

    /**
     * Slot {@code number} was written. Its writer holds the bucket's lock until this is
     * acknowledged, so the slot cannot change while it is read here.
     */
    private void index(int number) {
        int bucket = number / layout.slotsPerBucket();
        int slot = number % layout.slotsPerBucket();
        KvSlot entry = KvSlot.decode(store.buffer(bucket).segment().asSlice(layout.slotOffset(slot), layout.slotSize()));
        if (entry == null) {
            logger.warn("Slot " + number + " does not check out after its write: a client wrote it without holding"
                    + " bucket " + bucket + "'s lock");
        } else if (entry.isEmpty()) {
            keysBySlot.remove(number);
        } else {
            keysBySlot.put(number, entry.key());
        }
    }

    /** The keys stored, as the writes' immediate data told the server, sorted. */
    List<String> keys() {
        return keysBySlot.values().stream().sorted().toList();
    }
}

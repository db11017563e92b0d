package io.rdma.sample;

import io.rdma.spring.connection.RdmaConnectionStateChangedEvent;
import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.connection.ServiceGroup;
import io.rdma.spring.listener.RdmaListener;
import io.rdma.spring.listener.ReceivedMessage;
import io.rdma.spring.template.RdmaTemplate;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * The key-value store's client, over connection {@code kv-client} to the instances of the service:
 * a key lives in the store of the instance it maps to ({@link ServiceGroup#forKey}), so the
 * instances share the keys between them; when one leaves, its keys are gone (the store is a
 * cache: nothing is copied) and keys that mapped to it map to the others. A GET is one RDMA READ of
 * the key's bucket, a PUT or DELETE locks the bucket with an RDMA compare-and-swap on its lock
 * word, writes the slot with RDMA WRITE with immediate (the immediate names the slot for the
 * server), waits for the server's acknowledgement and unlocks with another compare-and-swap. A
 * READ that overlaps a write sees a slot whose checksum does not match and is read again; a lock
 * taken by someone else, or a bucket changed since it was read (its lock word moved on), makes a
 * writer read again. Each call gives up after {@code sample.kv.timeout} (5 s) with a
 * {@link TimeoutException}. The methods block: call them from virtual threads.
 */
@Component
class KvClient {

    private static final String CONNECTION = "kv-client";
    private static final byte[] LAYOUT_REQUEST = {'L'};

    private final RdmaTemplate rdma;
    private final ServiceGroup instances;
    private final Duration timeout;
    /** Per instance's queue pair: its store's layout, and the replies awaited from it (their ids are its slot numbers). */
    private final Map<String, KvStoreLayout> layouts = new ConcurrentHashMap<>();
    private final Map<String, PendingReplies<byte[]>> replies = new ConcurrentHashMap<>();

    KvClient(RdmaTemplate rdma, RdmaConnections connections, @Value("${sample.kv.timeout:5s}") Duration timeout) {
        this.rdma = rdma;
        this.instances = connections.group(CONNECTION);
        this.timeout = timeout;
    }

    /** The value of {@code key}, or empty when it is not stored. */
    Optional<byte[]> get(String key) throws TimeoutException, InterruptedException {
        String instance = instances.forKey(key);
        KvStoreLayout store = layout(instance);
        int bucket = store.bucketOf(key);
        long deadline = deadline();
        for (int attempt = 0; ; attempt++) {
            KvBucket read = read(instance, store, bucket, deadline);
            if (read != null) {
                int slot = read.slotOf(key);
                return slot < 0 ? Optional.empty() : Optional.of(read.slots().get(slot).value());
            }
            backOff(attempt, deadline, "bucket " + bucket + " was being written at every read");
        }
    }

    /**
     * Stores {@code value} under {@code key}, in the slot that holds the key or else in a free one.
     *
     * @throws KvEntryTooLargeException when key and value do not fit in a slot
     * @throws KvBucketFullException    when the key is new and its bucket has no free slot
     * @throws io.rdma.spring.connection.NoServiceInstanceException when no instance is connected
     */
    void put(String key, byte[] value) throws TimeoutException, InterruptedException {
        store(key, new KvSlot(key, value));
    }

    /** Removes {@code key}; false when it was not stored. */
    boolean delete(String key) throws TimeoutException, InterruptedException {
        return store(key, KvSlot.EMPTY);
    }

    /** Writes {@code entry} into the slot of {@code key}'s bucket that it belongs in; false when there is none to empty. */
    private boolean store(String key, KvSlot entry) throws TimeoutException, InterruptedException {
        String instance = instances.forKey(key);
        KvStoreLayout store = layout(instance);
        byte[] image = entry.encode(store.slotSize());
        int bucket = store.bucketOf(key);
        long deadline = deadline();
        for (int attempt = 0; ; attempt++) {
            KvBucket read = read(instance, store, bucket, deadline);
            if (read != null && !read.isLocked()) {
                int slot = entry.isEmpty() ? read.slotOf(key) : read.slotFor(key);
                if (slot < 0 && entry.isEmpty()) {
                    return false;
                }
                if (slot < 0) {
                    throw new KvBucketFullException(key, bucket, store.slotsPerBucket());
                }
                // Succeeds only if nothing wrote the bucket since the read: what the read showed
                // (the key in no other slot, this slot free or the key's) still holds.
                if (compareAndSwap(instance, store, bucket, read.lockWord(), read.lockWord() + 1, deadline)) {
                    try {
                        int number = store.slotNumber(bucket, slot);
                        await(replies(instance).call(number,
                                () -> rdma.write(instance, image, store.slot(bucket, slot), number)), deadline);
                    } finally {
                        // a deadline of its own: a PUT that ran out of time must still let go of the bucket
                        compareAndSwap(instance, store, bucket, read.lockWord() + 1, read.lockWord() + 2, deadline());
                    }
                    return true;
                }
            }
            backOff(attempt, deadline, "bucket " + bucket + " stayed locked by other writers");
        }
    }

    /** The bucket, or null when the read overlapped a write. */
    private @Nullable KvBucket read(String instance, KvStoreLayout store, int bucket, long deadline)
            throws TimeoutException, InterruptedException {
        return KvBucket.decode(await(rdma.read(instance, store.bucket(bucket), store.bucketSize()), deadline), store);
    }

    /** Whether the lock word was {@code expected} and is now {@code desired}. */
    private boolean compareAndSwap(String instance, KvStoreLayout store, int bucket, long expected, long desired,
                                   long deadline) throws TimeoutException, InterruptedException {
        return await(rdma.compareAndSwap(instance, store.lockWord(bucket), expected, desired), deadline) == expected;
    }

    /**
     * The layout of {@code instance}'s store, asked for at the first call after each
     * (re)connection: a reconnection may reach a restarted server, whose region has another
     * address and rkey.
     */
    private KvStoreLayout layout(String instance) throws TimeoutException, InterruptedException {
        KvStoreLayout known = layouts.get(instance);
        if (known != null) {
            return known;
        }
        synchronized (this) {
            KvStoreLayout layout = layouts.get(instance);
            if (layout == null) {
                layout = KvStoreLayout.decode(await(replies(instance).call(KvStoreLayout.REQUEST,
                        () -> rdma.send(instance, LAYOUT_REQUEST, KvStoreLayout.REQUEST)), deadline()));
                layouts.put(instance, layout);
            }
            return layout;
        }
    }

    private PendingReplies<byte[]> replies(String instance) {
        return replies.computeIfAbsent(instance, any -> new PendingReplies<>(timeout));
    }

    /** A (re)connected instance may be a restarted server; one no longer connected is forgotten. */
    @EventListener(condition = "#event.name().startsWith('kv-client@')")
    void connectionChanged(RdmaConnectionStateChangedEvent event) {
        layouts.remove(event.queuePair());
        List<String> connected = instances.all();
        layouts.keySet().retainAll(connected);
        replies.keySet().retainAll(connected);
    }

    /** The layout, or a write's acknowledgement; each carries its request's immediate data. */
    @RdmaListener(serviceConnection = CONNECTION)
    void reply(ReceivedMessage message) {
        PendingReplies<byte[]> awaited = replies.get(message.queuePair());
        if (awaited != null) {
            awaited.complete(message.immediateData(), message.payload());
        }
    }

    private long deadline() {
        return System.nanoTime() + timeout.toNanos();
    }

    /** Waits a random few milliseconds, more after each failed attempt, so that contending writers spread out. */
    private static void backOff(int attempt, long deadline, String why) throws TimeoutException, InterruptedException {
        if (System.nanoTime() - deadline > 0) {
            throw new TimeoutException(why);
        }
        Thread.sleep(ThreadLocalRandom.current().nextInt(1 + Math.min(attempt, 10)));
    }

    private static <T> T await(CompletableFuture<T> operation, long deadline) throws TimeoutException, InterruptedException {
        try {
            return operation.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            switch (e.getCause()) {
                case TimeoutException timedOut -> throw timedOut;
                case RuntimeException failed -> throw failed;
                default -> throw new IllegalStateException(e.getCause());
            }
        }
    }
}

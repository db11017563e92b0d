package io.rdma.sample;

import io.rdma.spring.connection.ConnectionState;
import io.rdma.spring.connection.RdmaConnectionStateChangedEvent;
import io.rdma.spring.connection.RdmaConnections;
import io.rdma.spring.connection.ServiceGroup;
import io.rdma.spring.template.RdmaChannelDownException;
import io.rdma.spring.template.RdmaOperationException;
import io.rdma.spring.template.RdmaOperations;
import io.rdma.verbs.api.DeviceContext;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * The key-value store's client, over connection {@code kv-client} to the instances of the service:
 * a key lives in the store of the instance it maps to ({@link ServiceGroup#ownerOf}), so the
 * instances share the keys between them. While an instance's connection is down (it died, its link
 * is down, the network is partitioned) its keys stay with it and calls for them fail at once (HTTP
 * 503) until it is back: were they moved to another instance meanwhile, a value written before
 * would be missing there and, once the first is back, a value written meanwhile. When an instance
 * leaves the service its keys are gone (the store is a cache: nothing is copied) and keys that
 * mapped to it map to the others. A GET is one RDMA READ of
 * the key's bucket, a PUT or DELETE locks the bucket with an RDMA compare-and-swap on its lock
 * word, writes the slot with an RDMA WRITE, tells the server which slot it wrote and waits for its
 * acknowledgement (a request/reply, {@link KvControl}), and unlocks with another compare-and-swap. A
 * READ that overlaps a write sees a slot whose checksum does not match and is read again; a lock
 * taken by someone else, or a bucket changed since it was read (its lock word moved on), makes a
 * writer read again. Each call answers within {@code sample.kv.timeout} (5 s), its layout request
 * included, or gives up then with a {@link TimeoutException}: giving up withdraws the operation it
 * waited for where it was not posted yet, and what must still end after the caller has gone ends
 * without it: a lock's compare-and-swap posted before the deadline and completed after it lets go
 * of the lock it took at once, so no lock is taken for a caller that is gone, and an unlock is
 * never given up (a write acknowledged in time is answered as done by the deadline, while its
 * unlock still waits for send-queue room).
 *
 * <p>A lock is a lease: a writer that finds a bucket held by the same lock word for longer than
 * {@code sample.kv.lease} (three times the timeout unless set: longer than a live writer holds
 * a lock, its timeout and then its unlock's wait for send-queue room), as its own clock measures it, takes it
 * over with a compare-and-swap of that word, so a client that died holding a lock keeps no bucket
 * for good. No clock is shared: each writer measures how long it has seen the word unchanged. The
 * one that takes over empties the slots its predecessor left half-written (an unacknowledged write
 * may be lost, never torn), tells the server, and lets go; a predecessor that was only slow finds the
 * word moved on, so its unlock changes nothing. An unlock that the connection's failure cut off (a
 * partition, the link down) is posted again once the connection is back, if the server is the
 * same one (its store's layout unchanged): the bucket is free again then, not only once its lease
 * has passed, and an unlock that did take effect before the cut changes nothing the second time
 * (lock words only grow). A lock whose compare-and-swap the failure cut off before its completion
 * came is not known to be held (another writer may have moved the word to the same value), so only
 * its lease frees it. The methods block: call them from virtual threads.
 *
 * <p>On a device without atomics (an iWARP one, siw) no bucket can be locked: PUT and DELETE fail
 * at once with {@link KvWritesUnsupportedException} (HTTP 501), said once at start, and GET reads.
 */
@Component
class KvClient {

    private static final Log logger = LogFactory.getLog(KvClient.class);
    private static final String CONNECTION = "kv-client";

    private final RdmaOperations rdma;
    private final ServiceGroup instances;
    private final Duration timeout;
    private final Duration lease;
    /** The device's name where it has no atomics to lock buckets with, else null. */
    private final @Nullable String deviceWithoutAtomics;
    /** Per instance's queue pair: its store's layout, asked for once however many callers want it. */
    private final Map<String, CompletableFuture<KvStoreLayout>> layouts = new ConcurrentHashMap<>();
    /** A held lock word as this client first saw it, by instance and bucket: when it was seen. */
    private final Map<String, Held> held = new ConcurrentHashMap<>();

    /** Lock word {@code word}, first seen held at {@link System#nanoTime} {@code since}. */
    private record Held(long word, long since) {
    }

    /** Unlocks that their connection's failure cut off, by instance: posted again when it is back. */
    private final Map<String, Set<CutOffUnlock>> cutOff = new ConcurrentHashMap<>();

    /** The unlock of {@code bucket}, locked at {@code lockedWord}, of the store laid out as {@code store}. */
    private record CutOffUnlock(KvStoreLayout store, int bucket, long lockedWord) {
    }

    KvClient(RdmaOperations rdma, RdmaConnections connections, SampleProperties properties,
             @Qualifier("nic") DeviceContext device) {
        this.rdma = rdma;
        this.instances = connections.group(CONNECTION);
        this.timeout = properties.kv().timeout();
        this.lease = properties.kv().leaseOrDefault();
        this.deviceWithoutAtomics = device.queryDevice().supportsAtomics() ? null : device.deviceName();
        if (deviceWithoutAtomics != null) {
            logger.warn("The key-value store is read-only here: "
                    + KvWritesUnsupportedException.reason(deviceWithoutAtomics));
        }
    }

    /** Whether PUT and DELETE can work: the device has atomics to lock buckets with. */
    boolean writable() {
        return deviceWithoutAtomics == null;
    }

    /** The value of {@code key}, or empty when it is not stored. */
    Optional<byte[]> get(String key) throws TimeoutException, InterruptedException {
        long deadline = deadline();
        String instance = instances.ownerOf(key);
        KvStoreLayout store = layout(instance, deadline);
        int bucket = store.bucketOf(key);
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
        if (deviceWithoutAtomics != null) {
            throw new KvWritesUnsupportedException(deviceWithoutAtomics);
        }
        long deadline = deadline();
        String instance = instances.ownerOf(key);
        KvStoreLayout store = layout(instance, deadline);
        byte[] image = entry.encode(store.slotSize());
        int bucket = store.bucketOf(key);
        for (int attempt = 0; ; attempt++) {
            byte[] bucketImage = await(rdma.read(instance, store.bucket(bucket), store.bucketSize()), deadline);
            long word = KvBucket.lockWordOf(bucketImage);
            if (KvBucket.isLocked(word)) {
                if (leaseExpired(instance, bucket, word)) {
                    takeOver(instance, store, bucket, word, deadline);
                    continue;
                }
                backOff(attempt, deadline, "bucket " + bucket + " stayed locked by other writers");
                continue;
            }
            held.remove(instance + "/" + bucket);
            KvBucket read = KvBucket.decode(bucketImage, store);
            if (read != null) {
                int slot = entry.isEmpty() ? read.slotOf(key) : read.slotFor(key);
                if (slot < 0 && entry.isEmpty()) {
                    return false;
                }
                if (slot < 0) {
                    throw new KvBucketFullException(key, bucket, store.slotsPerBucket());
                }
                // Succeeds only if nothing wrote the bucket since the read: what the read showed
                // (the key in no other slot, this slot free or the key's) still holds.
                if (lock(instance, store, bucket, read.lockWord(), deadline)) {
                    try {
                        int number = store.slotNumber(bucket, slot);
                        // RC delivers the notice after the write, so the server reads the new bytes
                        rdma.write(instance, image, store.slot(bucket, slot));
                        await(rdma.convertSendAndReceive(instance, new KvControl.SlotWritten(number),
                                KvControl.Acknowledged.class, remaining(deadline)), deadline);
                    } finally {
                        letGo(instance, store, bucket, read.lockWord() + 1, deadline);
                    }
                    return true;
                }
            }
            backOff(attempt, deadline, "bucket " + bucket + " stayed locked by other writers");
        }
    }

    /**
     * Whether {@code word}, a held lock word of the bucket, has been seen unchanged for longer than
     * the lease, as this client measures it from the first time it saw it.
     */
    private boolean leaseExpired(String instance, int bucket, long word) {
        long now = System.nanoTime();
        Held seen = held.compute(instance + "/" + bucket,
                (any, before) -> before != null && before.word() == word ? before : new Held(word, now));
        return now - seen.since() > lease.toNanos();
    }

    /**
     * Takes over the bucket whose lock word {@code expired} outlived its lease: moves it to the next
     * odd value (this client holds it now, its predecessor no longer can let go of it), empties the
     * slots left half-written and tells the server, then lets go. Another writer taking it over at
     * the same moment makes the swap fail, and this one reads again. A swap posted before the
     * deadline that takes the bucket after it leaves it held: only a take-over empties what its
     * predecessor half-wrote, so the next writer's lease frees it.
     */
    private void takeOver(String instance, KvStoreLayout store, int bucket, long expired, long deadline)
            throws TimeoutException, InterruptedException {
        if (await(rdma.compareAndSwap(instance, store.lockWord(bucket), expired, expired + 2), deadline) != expired) {
            return;
        }
        held.remove(instance + "/" + bucket);
        try {
            byte[] image = await(rdma.read(instance, store.bucket(bucket), store.bucketSize()), deadline);
            List<Integer> torn = KvBucket.tornSlots(image, store);
            logger.warn("Key-value bucket " + bucket + " of " + instance + " was held past its lease (" + lease
                    + "); taken over" + (torn.isEmpty() ? "" : ", emptying half-written slots " + torn));
            byte[] empty = KvSlot.EMPTY.encode(store.slotSize());
            for (int slot : torn) {
                int number = store.slotNumber(bucket, slot);
                rdma.write(instance, empty, store.slot(bucket, slot));
                await(rdma.convertSendAndReceive(instance, new KvControl.SlotWritten(number),
                        KvControl.Acknowledged.class, remaining(deadline)), deadline);
            }
        } finally {
            letGo(instance, store, bucket, expired + 2, deadline);
        }
    }

    /** The bucket, or null when the read overlapped a write. */
    private @Nullable KvBucket read(String instance, KvStoreLayout store, int bucket, long deadline)
            throws TimeoutException, InterruptedException {
        return KvBucket.decode(await(rdma.read(instance, store.bucket(bucket), store.bucketSize()), deadline), store);
    }

    /**
     * Locks the bucket, free at {@code word}, by swapping it for the next (odd) value: true when
     * this client holds it now. A swap posted before the deadline and completed after it lets go at
     * once of a lock it took, as its caller is gone.
     */
    private boolean lock(String instance, KvStoreLayout store, int bucket, long word, long deadline)
            throws TimeoutException, InterruptedException {
        CompletableFuture<Long> swap = rdma.compareAndSwap(instance, store.lockWord(bucket), word, word + 1);
        try {
            return await(swap, deadline) == word;
        } catch (TimeoutException e) {
            swap.thenAccept(before -> {
                if (before == word) {
                    unlock(instance, store, bucket, word + 1);
                }
            });
            throw e;
        }
    }

    /**
     * Lets go of the bucket locked at {@code lockedWord}, waiting for that until the deadline: a
     * failure then is the call's, and an unlock still under way goes on without the caller.
     */
    private void letGo(String instance, KvStoreLayout store, int bucket, long lockedWord, long deadline)
            throws InterruptedException {
        try {
            outcome(unlock(instance, store, bucket, lockedWord), deadline);
        } catch (TimeoutException stillUnderWay) {
            // ends without the caller: an unlock is never withdrawn
        }
    }

    /**
     * Posts the unlock of the bucket locked at {@code lockedWord}, never to be withdrawn however
     * long the send queue makes it wait, as giving up would leave the bucket locked for its lease.
     * One that the connection's failure cuts off is kept to be posted again when it is back.
     */
    private CompletableFuture<Long> unlock(String instance, KvStoreLayout store, int bucket, long lockedWord) {
        return rdma.compareAndSwap(instance, store.lockWord(bucket), lockedWord, lockedWord + 1)
                .whenComplete((before, failure) -> {
                    Throwable cause = failure instanceof CompletionException wrapped ? wrapped.getCause() : failure;
                    if (cause instanceof RdmaChannelDownException || cause instanceof RdmaOperationException) {
                        cutOff.computeIfAbsent(instance, any -> ConcurrentHashMap.newKeySet())
                                .add(new CutOffUnlock(store, bucket, lockedWord));
                    }
                });
    }

    /**
     * Posts again the unlocks of {@code instance} that its connection's failure cut off, now that it
     * is back, where its store is the one they locked: a restarted server's is new, and no lock of
     * this client's is held there. One cut off again is kept for the next time.
     */
    private void unlockCutOff(String instance) {
        Set<CutOffUnlock> unlocks = cutOff.remove(instance);
        if (unlocks == null) {
            return;
        }
        try {
            KvStoreLayout now = layout(instance, deadline());
            for (CutOffUnlock cut : unlocks) {
                if (cut.store().equals(now)) {
                    unlock(instance, now, cut.bucket(), cut.lockedWord()).join();
                    logger.info("Key-value bucket " + cut.bucket() + " of " + instance + ", whose unlock the"
                            + " connection's failure cut off, let go now that it is back");
                }
            }
        } catch (TimeoutException | RuntimeException e) {
            // cut off again (kept by unlock), or the layout not to be had: the lease frees the rest
            logger.warn("Key-value unlocks of " + instance + " that its connection's failure cut off are left to"
                    + " the lease (" + lease + "): " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The layout of {@code instance}'s store, asked for at the first call after each
     * (re)connection: a reconnection may reach a restarted server, whose region has another
     * address and rkey. Callers at once share one request, each waiting up to its own call's
     * deadline (a request that failed is made again by the next caller): one caller's wait never
     * adds to another's, as it did while they took turns under a lock, a whole timeout each.
     */
    private KvStoreLayout layout(String instance, long deadline) throws TimeoutException, InterruptedException {
        CompletableFuture<KvStoreLayout> asked = layouts.computeIfAbsent(instance, any ->
                rdma.convertSendAndReceive(instance, new KvControl.LayoutRequest(), KvStoreLayout.class, timeout));
        asked.whenComplete((layout, failure) -> {
            if (failure != null) {
                layouts.remove(instance, asked);
            }
        });
        return await(asked.copy(), deadline); // giving up withdraws this caller's copy, not the request
    }

    /**
     * A (re)connected instance may be a restarted server; one no longer connected is forgotten; a
     * reconnected one has its cut-off unlocks posted again, on a thread of their own (this is the
     * connection's).
     */
    @EventListener(condition = "#event.name().startsWith('kv-client@')")
    void connectionChanged(RdmaConnectionStateChangedEvent event) {
        layouts.remove(event.queuePair());
        List<String> connected = instances.all();
        layouts.keySet().retainAll(connected);
        held.keySet().removeIf(key -> !connected.contains(key.substring(0, key.lastIndexOf('/'))));
        if (event.newState() == ConnectionState.UP && cutOff.containsKey(event.queuePair())) {
            Thread.ofVirtual().name("kv-unlock-" + event.queuePair()).start(() -> unlockCutOff(event.queuePair()));
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

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
    }

    /**
     * The operation's outcome, or a {@link TimeoutException} at {@code deadline}, having withdrawn
     * the operation if it still waited for send-queue room (then it is never posted); one posted
     * already ({@code cancel} false) goes on to its outcome without the caller.
     */
    private static <T> T await(CompletableFuture<T> operation, long deadline) throws TimeoutException, InterruptedException {
        try {
            return outcome(operation, deadline);
        } catch (TimeoutException e) {
            operation.cancel(false);
            throw e;
        }
    }

    /** The operation's outcome, or a {@link TimeoutException} at {@code deadline}, the operation left as it is. */
    private static <T> T outcome(CompletableFuture<T> operation, long deadline) throws TimeoutException, InterruptedException {
        try {
            return operation.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            switch (Objects.requireNonNull(e.getCause())) { // CompletableFuture.get always gives the cause
                case TimeoutException timedOut -> throw timedOut;
                case RuntimeException failed -> throw failed;
                default -> throw new IllegalStateException(e.getCause());
            }
        }
    }
}

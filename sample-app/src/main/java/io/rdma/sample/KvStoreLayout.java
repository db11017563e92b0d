package io.rdma.sample;

import io.rdma.verbs.api.RemoteBuffer;


/**
 * Where the key-value store lives and how it is cut up: the server's registered region (address
 * and rkey) of {@code buckets} buckets of {@code bucketSize} bytes, each a lock word followed by
 * {@code slotsPerBucket} slots. The server sends it to a client that asks; the client then reads
 * and writes the region without the server's CPU.
 *
 * <pre>
 * bucket: | lock word (8) | slot 0 | slot 1 | ... | slot n-1 | (unused rest)
 * </pre>
 *
 * A key lives in one of the slots of the bucket its hash names (bounded probing: a bucket is one
 * RDMA READ, and a key is never anywhere else), so a GET is one READ. {@code incarnation} is drawn
 * at random by each server as it starts: a restarted server's store never equals the one before,
 * even at the same address and rkey, as a client that kept a lock of the one before must know.
 */
record KvStoreLayout(long address, int rkey, int buckets, int bucketSize, int slotsPerBucket, long incarnation) {

    /**
     * Bytes of a bucket's lock word: even while no writer holds the bucket, odd while one does.
     * Only RDMA atomics change it (compare-and-swap), which act on the host's byte order.
     */
    static final int LOCK_WORD = Long.BYTES;

    KvStoreLayout {
        if (slotsPerBucket < 1 || (bucketSize - LOCK_WORD) / slotsPerBucket <= KvSlot.HEADER) {
            throw new IllegalArgumentException("buckets of " + bucketSize + " bytes hold no " + slotsPerBucket
                    + " slots with room for a key; give the kv-store pool a larger buffer-size or"
                    + " sample.kv.slots-per-bucket a smaller value");
        }
    }

    /** Bytes of one slot. */
    int slotSize() {
        return (bucketSize - LOCK_WORD) / slotsPerBucket;
    }

    /** The bucket a key lives in: String.hashCode is specified, so every client agrees. */
    int bucketOf(String key) {
        int hash = key.hashCode();
        return Math.floorMod(hash ^ (hash >>> 16), buckets);
    }

    RemoteBuffer bucket(int bucket) {
        return new RemoteBuffer(address + (long) bucket * bucketSize, rkey, bucketSize);
    }

    RemoteBuffer lockWord(int bucket) {
        return bucket(bucket).slice(0, LOCK_WORD);
    }

    RemoteBuffer slot(int bucket, int slot) {
        return bucket(bucket).slice(slotOffset(slot), slotSize());
    }

    /** Where slot {@code slot} starts in its bucket. */
    long slotOffset(int slot) {
        return LOCK_WORD + (long) slot * slotSize();
    }

    /** A slot's number in the whole store: the immediate data of the write that fills it. */
    int slotNumber(int bucket, int slot) {
        return bucket * slotsPerBucket + slot;
    }
}

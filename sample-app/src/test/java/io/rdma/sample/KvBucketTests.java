package io.rdma.sample;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a client makes of the bytes one RDMA READ of a bucket returned, torn ones included: a
 * READ overlapping a WRITE of a slot returns part of each, which no fabric produces on demand
 * (the simulated one copies a WRITE in one piece), so the tear is made here.
 */
class KvBucketTests {

    private final KvStoreLayout layout = new KvStoreLayout(0x1000, 7, 16, 1024, 4, 1);

    @Test
    void aBucketReadWholeShowsItsEntriesAndLockWord() {
        byte[] image = bucket(42, new KvSlot("a", bytes("one")), new KvSlot("b", bytes("two")));

        KvBucket bucket = KvBucket.decode(image, layout);

        assertThat(bucket).isNotNull();
        assertThat(bucket.lockWord()).isEqualTo(42);
        assertThat(bucket.isLocked()).isFalse();
        assertThat(bucket.slotOf("b")).isEqualTo(1);
        assertThat(bucket.slots().get(1).value()).isEqualTo(bytes("two"));
        assertThat(bucket.slotOf("c")).isEqualTo(-1);
        assertThat(bucket.slotFor("c")).as("the first free slot").isEqualTo(2);
        assertThat(bucket.slotFor("a")).as("the key's own slot").isZero();
    }

    @Test
    void aSlotReadWhileBeingWrittenMakesTheWholeBucketUnreadable() {
        int slotSize = layout.slotSize();
        byte[] before = bucket(2, new KvSlot("k", bytes("x".repeat(200))));
        byte[] after = bucket(3, new KvSlot("k", bytes("y".repeat(200))));
        byte[] torn = before.clone();
        // the READ saw the first half of the new slot, and the old second half
        System.arraycopy(after, (int) layout.slotOffset(0), torn, (int) layout.slotOffset(0), slotSize / 2);

        assertThat(KvBucket.decode(before, layout)).isNotNull();
        assertThat(KvBucket.decode(after, layout)).isNotNull();
        assertThat(KvBucket.decode(torn, layout)).as("a bucket with a torn slot").isNull();
    }

    @Test
    void anOddLockWordMeansAWriterHoldsTheBucket() {
        assertThat(KvBucket.decode(bucket(5), layout)).extracting(KvBucket::isLocked).isEqualTo(true);
    }

    @Test
    void aFullBucketHasNoSlotForANewKey() {
        KvBucket full = KvBucket.decode(bucket(0, new KvSlot("a", bytes("1")), new KvSlot("b", bytes("2")),
                new KvSlot("c", bytes("3")), new KvSlot("d", bytes("4"))), layout);

        assertThat(full.slotFor("e")).isEqualTo(-1);
        assertThat(full.slotFor("d")).isEqualTo(3);
    }

    @Test
    void anEntryLargerThanASlotIsRefused() {
        KvSlot large = new KvSlot("k", new byte[layout.slotSize()]);
        assertThatThrownBy(() -> large.encode(layout.slotSize())).isInstanceOf(KvEntryTooLargeException.class)
                .hasMessageContaining("a slot holds " + (layout.slotSize() - KvSlot.HEADER));
    }

    /** A bucket image as the server formats it, with {@code entries} in its first slots. */
    private byte[] bucket(long lockWord, KvSlot... entries) {
        MemorySegment bucket = MemorySegment.ofArray(new byte[layout.bucketSize()]);
        bucket.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, lockWord);
        for (int slot = 0; slot < layout.slotsPerBucket(); slot++) {
            KvSlot entry = slot < entries.length ? entries[slot] : KvSlot.EMPTY;
            MemorySegment.copy(MemorySegment.ofArray(entry.encode(layout.slotSize())), 0, bucket,
                    layout.slotOffset(slot), layout.slotSize());
        }
        return bucket.toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

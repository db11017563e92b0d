package io.rdma.sample;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

import org.jspecify.annotations.Nullable;

/**
 * One entry as a slot stores it; an empty slot has the empty key.
 *
 * <pre>
 * slot: | CRC32C of the rest (4) | key length (2) | value length (2) | key | value | zero padding
 * </pre>
 *
 * The checksum is what makes a one-sided read safe: an RDMA READ that overlaps a write of the
 * slot sees part of the old bytes and part of the new, the checksum does not match, and
 * {@link #decode} answers null, so that the reader reads again instead of returning a torn value.
 */
record KvSlot(String key, byte[] value) {

    static final int HEADER = 8;
    static final KvSlot EMPTY = new KvSlot("", new byte[0]);

    private static final ValueLayout.OfInt CHECKSUM = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort LENGTH = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    boolean isEmpty() {
        return key.isEmpty();
    }

    /** Bytes the key and value take in a slot. */
    int storedLength() {
        return key.getBytes(StandardCharsets.UTF_8).length + value.length;
    }

    /** The slot's image, {@code slotSize} bytes, checksum included. */
    byte[] encode(int slotSize) {
        byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
        if (HEADER + keyBytes.length + value.length > slotSize) {
            throw new KvEntryTooLargeException(key, storedLength(), slotSize - HEADER);
        }
        MemorySegment slot = MemorySegment.ofArray(new byte[slotSize]);
        slot.set(LENGTH, 4, (short) keyBytes.length);
        slot.set(LENGTH, 6, (short) value.length);
        MemorySegment.copy(keyBytes, 0, slot, ValueLayout.JAVA_BYTE, HEADER, keyBytes.length);
        MemorySegment.copy(value, 0, slot, ValueLayout.JAVA_BYTE, HEADER + keyBytes.length, value.length);
        slot.set(CHECKSUM, 0, checksum(slot));
        return slot.toArray(ValueLayout.JAVA_BYTE);
    }

    /** The entry in {@code slot}, or null when its checksum does not match: it was read while being written. */
    static @Nullable KvSlot decode(MemorySegment slot) {
        if (slot.get(CHECKSUM, 0) != checksum(slot)) {
            return null;
        }
        int keyLength = Short.toUnsignedInt(slot.get(LENGTH, 4));
        int valueLength = Short.toUnsignedInt(slot.get(LENGTH, 6));
        String key = new String(slot.asSlice(HEADER, keyLength).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        return new KvSlot(key, slot.asSlice(HEADER + keyLength, valueLength).toArray(ValueLayout.JAVA_BYTE));
    }

    private static int checksum(MemorySegment slot) {
        CRC32C crc = new CRC32C();
        crc.update(slot.asSlice(CHECKSUM.byteSize()).asByteBuffer());
        return (int) crc.getValue();
    }
}

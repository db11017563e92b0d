package io.rdma.verbs.loopback;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;

/** Recognizable bytes to send, and checks that exactly those bytes arrived. */
public final class Payloads {

    private Payloads() {
    }

    /** Fills {@code length} bytes at {@code offset} with a pattern that differs per {@code seed} and position. */
    public static void fill(MemorySegment memory, long offset, long length, int seed) {
        for (long i = 0; i < length; i++) {
            memory.set(ValueLayout.JAVA_BYTE, offset + i, patternByte(seed, i));
        }
    }

    /** Asserts the bytes at {@code offset} are those {@link #fill} wrote for {@code seed}. */
    public static void assertFilled(MemorySegment memory, long offset, long length, int seed) {
        for (long i = 0; i < length; i++) {
            byte actual = memory.get(ValueLayout.JAVA_BYTE, offset + i);
            if (actual != patternByte(seed, i)) {
                assertThat(actual).as("byte %d of %d at offset %d (seed %d)", i, length, offset, seed)
                        .isEqualTo(patternByte(seed, i));
            }
        }
    }

    /**
     * Waits (at most {@link LoopbackFabric#WAIT}) until the bytes at {@code offset} are those
     * {@link #fill} wrote for {@code seed}, then asserts them: for transfers whose sender's
     * completion does not mean the data has landed (UC, UD).
     */
    public static void awaitFilled(MemorySegment memory, long offset, long length, int seed) {
        long deadline = System.nanoTime() + LoopbackFabric.WAIT.toNanos();
        while (!holds(memory, offset, length, seed) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertFilled(memory, offset, length, seed);
    }

    /** Whether the bytes at {@code offset} are those {@link #fill} wrote for {@code seed}. */
    public static boolean holds(MemorySegment memory, long offset, long length, int seed) {
        for (long i = 0; i < length; i++) {
            if (memory.get(ValueLayout.JAVA_BYTE, offset + i) != patternByte(seed, i)) {
                return false;
            }
        }
        return true;
    }

    private static byte patternByte(int seed, long position) {
        return (byte) (seed * 31 + position * 7 + (position >>> 8));
    }
}

package io.rdma.verbs.provider.simulated;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A scatter/gather list resolved to memory: (segment, offset, length) entries walked by a
 * cursor, so a message can be copied between two lists of different shapes without
 * allocating. Each QP keeps its own cursors, used only under its send lock.
 */
final class SgeCursor {

    private final @Nullable MemorySegment[] segments;
    private final long[] offsets;
    private final long[] lengths;
    private int count;
    private int index;
    private long consumed;

    SgeCursor(int capacity) {
        segments = new MemorySegment[capacity];
        offsets = new long[capacity];
        lengths = new long[capacity];
    }

    SgeCursor clear() {
        for (int i = 0; i < count; i++) {
            segments[i] = null;
        }
        count = 0;
        index = 0;
        consumed = 0;
        return this;
    }

    SgeCursor add(MemorySegment segment, long offset, long length) {
        segments[count] = segment;
        offsets[count] = offset;
        lengths[count] = length;
        count++;
        return this;
    }

    /** Back to the first byte, to copy the same list again. */
    SgeCursor rewind() {
        index = 0;
        consumed = 0;
        return this;
    }

    long total() {
        long total = 0;
        for (int i = 0; i < count; i++) {
            total += lengths[i];
        }
        return total;
    }

    /** The segment and offset of the first entry, for 8-byte atomic results. */
    MemorySegment firstSegment() {
        // entries below count are set, and an atomic has its one
        return Objects.requireNonNull(segments[0]);
    }

    long firstOffset() {
        return offsets[0];
    }

    /**
     * Whether this thread can still reach the memory of every entry. Closing a region frees its
     * memory without waiting for the WRs that use it (verbs manual §4.2 leaves those undefined),
     * so a close on another thread can fail a copy midway with the closed scope's
     * {@link IllegalStateException}; this tells whose memory it was.
     */
    boolean accessible() {
        Thread current = Thread.currentThread();
        for (int i = 0; i < count; i++) {
            MemorySegment segment = Objects.requireNonNull(segments[i]); // entries below count are set
            if (!segment.scope().isAlive() || !segment.isAccessibleBy(current)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Copies {@code bytes} from this cursor's position into {@code target}'s, advancing both.
     *
     * @throws IllegalStateException when either list's memory was freed, before or during the copy
     * @throws WrongThreadException when either list's memory is confined to another thread
     */
    void copyTo(SgeCursor target, long bytes) {
        long remaining = bytes;
        while (remaining > 0) {
            skipExhausted();
            target.skipExhausted();
            long chunk = Math.min(remaining, Math.min(lengths[index] - consumed,
                    target.lengths[target.index] - target.consumed));
            MemorySegment.copy(segments[index], offsets[index] + consumed,
                    target.segments[target.index], target.offsets[target.index] + target.consumed, chunk);
            consumed += chunk;
            target.consumed += chunk;
            remaining -= chunk;
        }
    }

    private void skipExhausted() {
        while (consumed == lengths[index]) {
            index++;
            consumed = 0;
        }
    }
}

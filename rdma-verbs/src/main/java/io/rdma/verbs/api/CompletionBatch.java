package io.rdma.verbs.api;

import io.rdma.verbs.spi.CompletionSink;

/**
 * A reusable array of {@link WorkCompletion}s that a poll fills (verbs manual §5.3 pattern 2):
 * allocate one per poller, poll into it forever, no allocation per completion.
 *
 * <p>Not thread-safe: mutable and overwritten by each poll, so confine it and its completions to
 * the polling thread.
 */
public final class CompletionBatch {

    private final WorkCompletion[] entries;
    /** What a provider writes this batch's entries through; one per batch, so a poll allocates nothing. */
    private final CompletionSink sink = new Sink();
    private int size;

    /** @throws IllegalArgumentException when {@code capacity} is below 1 */
    public CompletionBatch(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a completion batch holds at least one entry");
        }
        entries = new WorkCompletion[capacity];
        for (int i = 0; i < capacity; i++) {
            entries[i] = new WorkCompletion();
        }
    }

    public int capacity() {
        return entries.length;
    }

    /** Completions of the last poll. */
    public int size() {
        return size;
    }

    /** @throws IndexOutOfBoundsException when {@code index} is not below {@link #size()} */
    public WorkCompletion get(int index) {
        if (index >= size) {
            throw new IndexOutOfBoundsException("completion " + index + " of a batch holding " + size);
        }
        return entries[index];
    }

    /** Where a provider writes the entries of a poll, regardless of the current size. */
    CompletionSink sink() {
        return sink;
    }

    void size(int value) {
        size = value;
    }

    private final class Sink implements CompletionSink {

        @Override
        public int capacity() {
            return entries.length;
        }

        @Override
        public void put(int index, long wrId, CompletionStatus status, CompletionOpcode opcode, int vendorError,
                        int byteLength, int immediateData, int qpNumber, int sourceQpNumber, int flags,
                        int pkeyIndex, int sourceLid, int serviceLevel, long completionTimestamp) {
            entries[index].set(wrId, status, opcode, vendorError, byteLength, immediateData, qpNumber,
                    sourceQpNumber, flags, pkeyIndex, sourceLid, serviceLevel, completionTimestamp);
        }
    }
}

package io.rdma.verbs.api;

/**
 * A reusable array of {@link WorkCompletion}s that a poll fills (verbs manual §5.3 pattern 2):
 * allocate one per poller, poll into it forever, no allocation per completion.
 */
public final class CompletionBatch {

    private final WorkCompletion[] entries;
    private int size;

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

    public WorkCompletion get(int index) {
        if (index >= size) {
            throw new IndexOutOfBoundsException("completion " + index + " of a batch holding " + size);
        }
        return entries[index];
    }

    /** Slot {@code index} for a provider to fill, regardless of the current size. */
    public WorkCompletion slot(int index) {
        return entries[index];
    }

    void size(int value) {
        size = value;
    }
}

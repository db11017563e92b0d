package io.rdma.verbs.api;

/**
 * The {@code ibv_sge} array of a work request: address, length and lkey per entry, held in
 * primitive arrays sized once, so refilling a request allocates nothing.
 */
final class ScatterGatherList {

    private final long[] addresses;
    private final int[] lengths;
    private final int[] lkeys;
    private final String owner;
    private int count;

    /** {@code owner} names the request type in the error that says how to get more room. */
    ScatterGatherList(int capacity, String owner) {
        this.owner = owner;
        addresses = new long[capacity];
        lengths = new int[capacity];
        lkeys = new int[capacity];
    }

    void clear() {
        count = 0;
    }

    void add(long address, int length, int lkey) {
        if (count == addresses.length) {
            throw new IllegalStateException("this work request holds at most " + addresses.length
                    + " scatter/gather entries; create it with new " + owner + "(maxSge)");
        }
        addresses[count] = address;
        lengths[count] = length;
        lkeys[count] = lkey;
        count++;
    }

    int count() {
        return count;
    }

    long address(int index) {
        return addresses[index];
    }

    int length(int index) {
        return lengths[index];
    }

    int lkey(int index) {
        return lkeys[index];
    }

    long totalLength() {
        long total = 0;
        for (int i = 0; i < count; i++) {
            total += Integer.toUnsignedLong(lengths[i]);
        }
        return total;
    }
}

package io.rdma.verbs.api;

/**
 * {@code struct ibv_recv_wr} (manual §7.2), mutable and reusable like {@link SendWorkRequest}.
 * The memory it names must be registered with {@link AccessFlag#LOCAL_WRITE}.
 */
public final class ReceiveWorkRequest {

    private long wrId;
    private final long[] sgeAddress;
    private final int[] sgeLength;
    private final int[] sgeLkey;
    private int sgeCount;
    private ReceiveWorkRequest next;

    public ReceiveWorkRequest() {
        this(1);
    }

    public ReceiveWorkRequest(int maxSge) {
        sgeAddress = new long[maxSge];
        sgeLength = new int[maxSge];
        sgeLkey = new int[maxSge];
    }

    public ReceiveWorkRequest wrId(long value) { wrId = value; return this; }
    public ReceiveWorkRequest next(ReceiveWorkRequest value) { next = value; return this; }

    public ReceiveWorkRequest sge(long address, int length, int lkey) {
        sgeCount = 0;
        return addSge(address, length, lkey);
    }

    public ReceiveWorkRequest sge(MemoryRegion region, long offset, int length) {
        return sge(region.address() + offset, length, region.lkey());
    }

    public ReceiveWorkRequest sge(PooledBuffer buffer) {
        return sge(buffer.address(), buffer.capacity(), buffer.lkey());
    }

    public ReceiveWorkRequest addSge(long address, int length, int lkey) {
        if (sgeCount == sgeAddress.length) {
            throw new IllegalStateException("this work request holds at most " + sgeAddress.length
                    + " scatter/gather entries; create it with new ReceiveWorkRequest(maxSge)");
        }
        sgeAddress[sgeCount] = address;
        sgeLength[sgeCount] = length;
        sgeLkey[sgeCount] = lkey;
        sgeCount++;
        return this;
    }

    public long wrId() { return wrId; }
    public int sgeCount() { return sgeCount; }
    public long sgeAddress(int index) { return sgeAddress[index]; }
    public int sgeLength(int index) { return sgeLength[index]; }
    public int sgeLkey(int index) { return sgeLkey[index]; }
    public ReceiveWorkRequest next() { return next; }

    public long totalLength() {
        long total = 0;
        for (int i = 0; i < sgeCount; i++) {
            total += Integer.toUnsignedLong(sgeLength[i]);
        }
        return total;
    }
}

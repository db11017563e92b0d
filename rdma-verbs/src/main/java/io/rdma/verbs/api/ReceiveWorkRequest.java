package io.rdma.verbs.api;

/**
 * {@code struct ibv_recv_wr} (verbs manual §7.2), mutable and reusable like {@link SendWorkRequest}.
 * The memory it names must be registered with {@link AccessFlag#LOCAL_WRITE}.
 */
public final class ReceiveWorkRequest {

    private long wrId;
    private final ScatterGatherList sges;
    private ReceiveWorkRequest next;

    public ReceiveWorkRequest() {
        this(1);
    }

    public ReceiveWorkRequest(int maxSge) {
        sges = new ScatterGatherList(maxSge, "ReceiveWorkRequest");
    }

    public ReceiveWorkRequest wrId(long value) { wrId = value; return this; }
    public ReceiveWorkRequest next(ReceiveWorkRequest value) { next = value; return this; }

    public ReceiveWorkRequest sge(long address, int length, int lkey) {
        sges.clear();
        return addSge(address, length, lkey);
    }

    public ReceiveWorkRequest sge(MemoryRegion region, long offset, int length) {
        return sge(region.address() + offset, length, region.lkey());
    }

    public ReceiveWorkRequest sge(PooledBuffer buffer) {
        return sge(buffer.address(), buffer.capacity(), buffer.lkey());
    }

    public ReceiveWorkRequest addSge(long address, int length, int lkey) {
        sges.add(address, length, lkey);
        return this;
    }

    public long wrId() { return wrId; }
    public int sgeCount() { return sges.count(); }
    public long sgeAddress(int index) { return sges.address(index); }
    public int sgeLength(int index) { return sges.length(index); }
    public int sgeLkey(int index) { return sges.lkey(index); }
    public ReceiveWorkRequest next() { return next; }

    /** Total bytes of the scatter/gather list. */
    public long totalLength() {
        return sges.totalLength();
    }
}

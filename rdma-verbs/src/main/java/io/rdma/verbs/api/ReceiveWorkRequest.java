package io.rdma.verbs.api;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_recv_wr} (verbs manual §7.2), mutable and reusable like {@link SendWorkRequest}:
 * entries are added in order with {@code addSge}, requests chained in order with
 * {@link #append(ReceiveWorkRequest)}, and {@link #reset()} readies it for the next use. The
 * memory it names must be registered with {@link AccessFlag#LOCAL_WRITE}. Not thread-safe:
 * confine a request to one thread from filling it until {@code postReceive} returns.
 */
public final class ReceiveWorkRequest {

    private long wrId;
    private final ScatterGatherList sges;
    private @Nullable ReceiveWorkRequest next;

    /** A request with room for one scatter/gather entry. */
    public ReceiveWorkRequest() {
        this(1);
    }

    /** A request with room for {@code maxSge} scatter/gather entries. */
    public ReceiveWorkRequest(int maxSge) {
        sges = new ScatterGatherList(maxSge, "ReceiveWorkRequest");
    }

    /** Clears everything but the SGE capacity, ready for the next use; unlinks it from its chain. */
    public ReceiveWorkRequest reset() {
        wrId = 0;
        sges.clear();
        next = null;
        return this;
    }

    public ReceiveWorkRequest wrId(long value) { wrId = value; return this; }

    /**
     * Chains {@code request} (and whatever is chained after it) after the last request of this
     * chain, so {@code a.append(b).append(c)} posts a, b, c in that order.
     *
     * @throws IllegalArgumentException when {@code request}'s chain already holds a request of
     *         this chain, which would make the chain a loop
     */
    public ReceiveWorkRequest append(ReceiveWorkRequest request) {
        WorkRequestChain.tailToAppend(this, request, ReceiveWorkRequest::next, ReceiveWorkRequest::wrId).next = request;
        return this;
    }

    /**
     * Adds the entry of {@code length} bytes at {@code offset} of {@code memory}, after the
     * entries added before it.
     *
     * @throws IllegalStateException when the request already holds the entries it was created for
     * @throws ResourceClosedException when {@code memory} is a closed memory region
     */
    public ReceiveWorkRequest addSge(RegisteredMemory memory, long offset, int length) {
        sges.add(memory.segment(), offset, length, memory.lkey());
        return this;
    }

    /**
     * Adds an entry as {@code struct ibv_sge} has it: an address, a length and an lkey.
     *
     * @throws IllegalStateException when the request already holds the entries it was created for
     */
    public ReceiveWorkRequest addSge(long address, int length, int lkey) {
        sges.add(address, length, lkey);
        return this;
    }

    public long wrId() { return wrId; }
    public int sgeCount() { return sges.count(); }
    public long sgeAddress(int index) { return sges.address(index); }
    public int sgeLength(int index) { return sges.length(index); }
    public int sgeLkey(int index) { return sges.lkey(index); }
    /** The request chained after this one, or null at the end of the chain. */
    public @Nullable ReceiveWorkRequest next() { return next; }

    /** Total bytes of the scatter/gather list. */
    public long totalLength() {
        return sges.totalLength();
    }
}

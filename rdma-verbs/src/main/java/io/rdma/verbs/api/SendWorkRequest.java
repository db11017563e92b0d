package io.rdma.verbs.api;

import java.lang.foreign.MemorySegment;

/**
 * {@code struct ibv_send_wr} (verbs manual §7.1), mutable and meant to be reused: fill it, post it,
 * fill it again. Posting copies it, so it may be changed as soon as {@code postSend} returns.
 * Chain requests with {@link #next(SendWorkRequest)} to post them with one doorbell (§12.5).
 */
public final class SendWorkRequest {

    private long wrId;
    private SendOpcode opcode = SendOpcode.SEND;
    private int flags = SendFlag.SIGNALED;
    private final ScatterGatherList sges;
    private int immediateData;
    private long remoteAddress;
    private int rkey;
    private long compareAdd;
    private long swap;
    private AddressHandle addressHandle;
    private int remoteQpNumber;
    private int remoteQkey;
    private SendWorkRequest next;

    /** A request with room for one scatter/gather entry. */
    public SendWorkRequest() {
        this(1);
    }

    public SendWorkRequest(int maxSge) {
        sges = new ScatterGatherList(maxSge, "SendWorkRequest");
    }

    /** Clears everything but the SGE capacity, ready for the next use. */
    public SendWorkRequest reset() {
        wrId = 0;
        opcode = SendOpcode.SEND;
        flags = SendFlag.SIGNALED;
        sges.clear();
        immediateData = 0;
        remoteAddress = 0;
        rkey = 0;
        compareAdd = 0;
        swap = 0;
        addressHandle = null;
        remoteQpNumber = 0;
        remoteQkey = 0;
        next = null;
        return this;
    }

    public SendWorkRequest wrId(long value) { wrId = value; return this; }
    public SendWorkRequest opcode(SendOpcode value) { opcode = value; return this; }
    /** {@link SendFlag} bits; {@code SIGNALED} by default. */
    public SendWorkRequest flags(int value) { flags = value; return this; }
    public SendWorkRequest immediateData(int value) { immediateData = value; return this; }
    public SendWorkRequest next(SendWorkRequest value) { next = value; return this; }

    /** Target of RDMA read/write: remote virtual address and rkey (verbs manual §7.1.2–7.1.3). */
    public SendWorkRequest remote(long address, int remoteKey) {
        remoteAddress = address;
        rkey = remoteKey;
        return this;
    }

    public SendWorkRequest remote(RemoteBuffer buffer) {
        return remote(buffer.address(), buffer.rkey());
    }

    /** Operands of an atomic: compare (or add) value and swap value (verbs manual §7.1.4). */
    public SendWorkRequest atomic(long compareOrAdd, long swapValue) {
        compareAdd = compareOrAdd;
        swap = swapValue;
        return this;
    }

    /** Destination of a UD send (verbs manual §7.1.7). */
    public SendWorkRequest datagram(AddressHandle handle, int qpNumber, int qkey) {
        addressHandle = handle;
        remoteQpNumber = qpNumber;
        remoteQkey = qkey;
        return this;
    }

    /** Replaces the scatter/gather list with one entry. */
    public SendWorkRequest sge(long address, int length, int lkey) {
        sges.clear();
        return addSge(address, length, lkey);
    }

    /** Replaces the scatter/gather list with {@code length} bytes at {@code offset} of a region. */
    public SendWorkRequest sge(MemoryRegion region, long offset, int length) {
        sges.clear();
        sges.add(region.segment(), offset, length, region.lkey());
        return this;
    }

    /** Replaces the scatter/gather list with the first {@code length} bytes of a pooled buffer. */
    public SendWorkRequest sge(PooledBuffer buffer, int length) {
        sges.clear();
        sges.add(buffer.segment(), 0, length, buffer.lkey());
        return this;
    }

    /**
     * Inline data needs no lkey (verbs manual §7.1.5); the bytes are copied at post time, through
     * {@code data}, so its arena must stay open until {@code postSend} returns (a closed one is
     * refused with EFAULT).
     */
    public SendWorkRequest inline(MemorySegment data) {
        flags |= SendFlag.INLINE;
        sges.clear();
        sges.add(data, 0, Math.toIntExact(data.byteSize()), 0);
        return this;
    }

    public SendWorkRequest addSge(long address, int length, int lkey) {
        sges.add(address, length, lkey);
        return this;
    }

    public long wrId() { return wrId; }
    public SendOpcode opcode() { return opcode; }
    public int flags() { return flags; }
    public boolean isSignaled() { return (flags & SendFlag.SIGNALED) != 0; }
    public boolean hasFlag(int flag) { return (flags & flag) != 0; }
    public int sgeCount() { return sges.count(); }
    public long sgeAddress(int index) { return sges.address(index); }
    public int sgeLength(int index) { return sges.length(index); }
    public int sgeLkey(int index) { return sges.lkey(index); }

    /**
     * Copies the bytes of entry {@code index} to {@code target} at {@code offset}, reading them
     * through the segment the entry was built from: how a provider takes inline data. EFAULT
     * ({@code verb}) when that segment's arena is closed or the entry has only a bare address,
     * which cannot be read safely.
     */
    public void copySge(int index, MemorySegment target, long offset, String verb) {
        MemorySegment source = sges.segment(index);
        if (source == null) {
            throw new VerbsException(verb, Errno.EFAULT, "inline entry " + index + " of WR " + wrId
                    + " is a bare address", "build inline entries with inline(MemorySegment), sge(MemoryRegion, ...) "
                    + "or sge(PooledBuffer, ...), so their memory can be checked").withBadWorkRequest(wrId);
        }
        try {
            MemorySegment.copy(source, sges.offset(index), target, offset, sges.length(index));
        } catch (IllegalStateException | WrongThreadException unreadable) {
            throw new VerbsException(verb, Errno.EFAULT, "the memory of inline entry " + index + " of WR " + wrId
                    + " cannot be read: " + unreadable.getMessage(), "keep the arena of inline data open, and "
                    + "shared or confined to the posting thread, until postSend returns")
                    .withBadWorkRequest(wrId).withCause(unreadable);
        } catch (IndexOutOfBoundsException outside) {
            throw new VerbsException(verb, Errno.EINVAL, "inline entry " + index + " of WR " + wrId
                    + " reaches past the end of its memory", "give an offset and length inside the buffer")
                    .withBadWorkRequest(wrId).withCause(outside);
        }
    }

    public int immediateData() { return immediateData; }
    public long remoteAddress() { return remoteAddress; }
    public int rkey() { return rkey; }
    public long compareAdd() { return compareAdd; }
    public long swap() { return swap; }
    public AddressHandle addressHandle() { return addressHandle; }
    public int remoteQpNumber() { return remoteQpNumber; }
    public int remoteQkey() { return remoteQkey; }
    public SendWorkRequest next() { return next; }

    /** Total bytes of the scatter/gather list. */
    public long totalLength() {
        return sges.totalLength();
    }
}

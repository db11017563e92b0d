package io.rdma.verbs.api;

import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_send_wr} (verbs manual §7.1), mutable and meant to be reused: fill it, post it,
 * {@link #reset()} it, fill it again. Posting copies it, so it may be changed as soon as
 * {@code postSend} returns. A new or reset request is a zeroed {@code ibv_send_wr}: opcode SEND, no
 * flags (so it completes into the send CQ only when {@link SendFlag#SIGNALED} is set), no
 * scatter/gather entries. Entries are added in order with {@code addSge}; requests are chained in
 * order with {@link #append(SendWorkRequest)} and posted with one doorbell (verbs manual §12.5).
 * Not thread-safe: confine a request to one thread from filling it until {@code postSend} returns.
 */
public final class SendWorkRequest {

    private long wrId;
    private SendOpcode opcode = SendOpcode.SEND;
    private final EnumSet<SendFlag> flags = EnumSet.noneOf(SendFlag.class);
    private final Set<SendFlag> flagsView = Collections.unmodifiableSet(flags);
    private int flagMask;
    /** Entries added with {@link #addInline}: their bytes exist only if the request is INLINE. */
    private int inlineEntries;
    private final ScatterGatherList sges;
    private int immediateData;
    private long remoteAddress;
    private int rkey;
    private long compareAdd;
    private long swap;
    private @Nullable AddressHandle addressHandle;
    private int remoteQpNumber;
    private int remoteQkey;
    private @Nullable SendWorkRequest next;

    /** A request with room for one scatter/gather entry. */
    public SendWorkRequest() {
        this(1);
    }

    /** A request with room for {@code maxSge} scatter/gather entries. */
    public SendWorkRequest(int maxSge) {
        sges = new ScatterGatherList(maxSge, "SendWorkRequest");
    }

    /** Clears everything but the SGE capacity, ready for the next use; unlinks it from its chain. */
    public SendWorkRequest reset() {
        wrId = 0;
        opcode = SendOpcode.SEND;
        flags.clear();
        flagMask = 0;
        inlineEntries = 0;
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
    public SendWorkRequest immediateData(int value) { immediateData = value; return this; }

    /** Replaces the request's flags with {@code value}; none until set. */
    public SendWorkRequest flags(Set<SendFlag> value) {
        flags.clear();
        flags.addAll(value);
        flagMask = SendFlag.mask(flags);
        return this;
    }

    /**
     * Chains {@code request} (and whatever is chained after it) after the last request of this
     * chain, so {@code a.append(b).append(c)} posts a, b, c in that order.
     *
     * @throws IllegalArgumentException when {@code request}'s chain already holds a request of
     *         this chain, which would make the chain a loop
     */
    public SendWorkRequest append(SendWorkRequest request) {
        WorkRequestChain.tailToAppend(this, request, SendWorkRequest::next, SendWorkRequest::wrId).next = request;
        return this;
    }

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

    /**
     * Adds the entry of {@code length} bytes at {@code offset} of {@code memory}, after the
     * entries added before it.
     *
     * @throws IllegalStateException when the request already holds the entries it was created for
     * @throws ResourceClosedException when {@code memory} is a closed memory region
     */
    public SendWorkRequest addSge(RegisteredMemory memory, long offset, int length) {
        sges.add(memory.segment(), offset, length, memory.lkey());
        return this;
    }

    /**
     * Adds an entry as {@code struct ibv_sge} has it: an address, a length and an lkey. The
     * provider cannot check such memory; {@link #addSge(RegisteredMemory, long, int)} lets it.
     *
     * @throws IllegalStateException when the request already holds the entries it was created for
     */
    public SendWorkRequest addSge(long address, int length, int lkey) {
        sges.add(address, length, lkey);
        return this;
    }

    /**
     * Adds all of {@code data} as inline data, which needs no lkey (verbs manual §7.1.5): the
     * request must carry {@link SendFlag#INLINE} (posting it without is refused with EINVAL). The
     * bytes are copied at post time, through {@code data}, so its arena must stay open until
     * {@code postSend} returns (a closed one is refused with EFAULT).
     *
     * @throws IllegalStateException when the request already holds the entries it was created for
     */
    public SendWorkRequest addInline(MemorySegment data) {
        sges.add(data, 0, Math.toIntExact(data.byteSize()), 0);
        inlineEntries++;
        return this;
    }

    public long wrId() { return wrId; }
    public SendOpcode opcode() { return opcode; }
    /** The request's flags, as a read-only view that follows later changes. */
    public Set<SendFlag> flags() { return flagsView; }
    /** The flags as {@code ibv_send_wr.send_flags} holds them: the OR of their {@link SendFlag#bit()}s. */
    public int flagMask() { return flagMask; }
    public boolean isSignaled() { return (flagMask & SendFlag.SIGNALED.bit()) != 0; }
    public boolean hasFlag(SendFlag flag) { return (flagMask & flag.bit()) != 0; }
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
    public @Nullable AddressHandle addressHandle() { return addressHandle; }
    public int remoteQpNumber() { return remoteQpNumber; }
    public int remoteQkey() { return remoteQkey; }
    /** The request chained after this one, or null at the end of the chain. */
    public @Nullable SendWorkRequest next() { return next; }

    /** Total bytes of the scatter/gather list. */
    public long totalLength() {
        return sges.totalLength();
    }

    /** EINVAL ({@code verb}) when inline entries were added but {@link SendFlag#INLINE} is not set. */
    void checkInlineFlag(String verb) {
        if (inlineEntries > 0 && !hasFlag(SendFlag.INLINE)) {
            throw new VerbsException(verb, Errno.EINVAL, "WR " + wrId + " holds inline data without SendFlag.INLINE",
                    "add SendFlag.INLINE to the request's flags, or name registered memory with addSge")
                    .withBadWorkRequest(wrId);
        }
    }
}

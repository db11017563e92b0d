package io.rdma.verbs.api;

/** Remote memory as a peer advertises it for RDMA read, write and atomics: address, rkey, length (verbs manual §11.2). */
public record RemoteBuffer(long address, int rkey, long length) {

    /** The sub-range at {@code offset}. */
    public RemoteBuffer slice(long offset, long sliceLength) {
        if (offset < 0 || sliceLength < 0 || offset + sliceLength > length) {
            throw new IndexOutOfBoundsException("bytes " + offset + ".." + (offset + sliceLength)
                    + " are outside a remote buffer of " + length);
        }
        return new RemoteBuffer(address + offset, rkey, sliceLength);
    }
}

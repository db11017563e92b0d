package io.rdma.verbs.api;

/**
 * Remote memory as a peer advertises it for RDMA read, write and atomics: address, rkey, length (verbs manual §11.2).
 *
 * <p>Immutable, so thread-safe.
 */
public record RemoteBuffer(long address, int rkey, long length) {

    /**
     * The sub-range at {@code offset}.
     *
     * @throws IndexOutOfBoundsException when the sub-range is not all inside this buffer
     */
    public RemoteBuffer slice(long offset, long sliceLength) {
        if (offset < 0 || sliceLength < 0 || offset + sliceLength > length) {
            throw new IndexOutOfBoundsException("bytes " + offset + ".." + (offset + sliceLength)
                    + " are outside a remote buffer of " + length);
        }
        return new RemoteBuffer(address + offset, rkey, sliceLength);
    }
}
